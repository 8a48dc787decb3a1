import type { ErrorClass } from './error-class.ts'
import type { Signature } from './signature.ts'

/**
 * What signatureSummary reads: a Signature, or the same fields as the hub
 * receives them. No runtime import here, so that the hub's browser bundle
 * can import this file (and only this one) from src/insights/.
 */
export type SummarySubject = Pick<Signature, 'kind' | 'method' | 'template'> & {
  readonly overflow?: boolean
  readonly ops?: readonly { readonly op: string; readonly path: string }[]
  readonly truncated?: boolean
  readonly liveError?: ErrorClass | null
  readonly shadowError?: ErrorClass | null
}

/** Paths a summary names before it says how many more there are. */
export const SUMMARY_PATHS = 6

/**
 * One line that tells a human what a signature means (docs/insights.md
 * "Summaries"), for logs and the hub:
 * `GET /v2/products/{id}: changed /body/price/tax, only shadow /body/stock/reserved`
 * or `POST /v2/orders: shadow timed out`. Operations read `changed`
 * (replace), `only shadow` (add) and `only live` (remove), in that order;
 * control characters are escaped so the line stays one line.
 */
export function signatureSummary(signature: SummarySubject): string {
  const endpoint = `${oneLine(signature.method)} ${oneLine(signature.template)}`
  return `${endpoint}: ${detail(signature)}`
}

function detail(signature: SummarySubject): string {
  if (signature.overflow) {
    const what = signature.kind === 'diff' ? 'differences' : 'failures'
    return `other ${what} (the gate's signature limit was reached)`
  }
  if (signature.kind === 'error') return failures(signature)
  return operations(signature.ops ?? [], signature.truncated === true)
}

function failures(signature: SummarySubject): string {
  const parts: string[] = []
  if (signature.liveError) parts.push(`live ${failureWords(signature.liveError)}`)
  if (signature.shadowError) parts.push(`shadow ${failureWords(signature.shadowError)}`)
  return parts.length === 0 ? 'failed' : parts.join(', ')
}

/** A class the hub does not know yet (a newer API) reads as a plain failure. */
function failureWords(errorClass: ErrorClass): string {
  return FAILURE_WORDS[errorClass] ?? 'failed'
}

const FAILURE_WORDS: Readonly<Record<ErrorClass, string>> = {
  timeout: 'timed out',
  refused: 'refused the connection',
  reset: 'reset the connection',
  too_large: 'answered too large a response',
  bad_response: 'sent a bad response',
  error: 'failed',
}

// Ops in the order a reader wants them: what changed, then what is new, then what is gone.
const OP_WORDS: ReadonlyArray<readonly [string, string]> = [
  ['replace', 'changed'],
  ['add', 'only shadow'],
  ['remove', 'only live'],
]

function operations(ops: readonly { op: string; path: string }[], truncated: boolean): string {
  const groups: string[] = []
  let shown = 0
  for (const [op, word] of OP_WORDS) {
    const paths: string[] = []
    for (const entry of ops) {
      if (entry.op !== op || shown === SUMMARY_PATHS) continue
      paths.push(oneLine(entry.path === '' ? '(whole document)' : entry.path))
      shown++
    }
    if (paths.length > 0) groups.push(`${word} ${paths.join(', ')}`)
  }
  const hidden = ops.length - shown
  if (hidden > 0) groups.push(`and ${hidden}${truncated ? '+' : ''} more`)
  else if (truncated) groups.push('and more')
  return groups.length === 0 ? 'differs' : groups.join(', ')
}

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g

function oneLine(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
