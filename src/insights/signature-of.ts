import type { PatchOp } from '../diff/patch-op.ts'
import type { Endpoint } from './endpoint.ts'
import { errorClassOf, type ErrorClass } from './error-class.ts'
import { signatureId } from './signature-id.ts'
import { generalisedPath } from './signature-path.ts'
import {
  MAX_SIGNATURE_OPS,
  type DiffSignature,
  type ErrorSignature,
  type Signature,
  type SignatureOp,
} from './signature.ts'

/** What a capture's signature is read from: both responses, as stored, and its patch. */
export interface SignatureSubject {
  readonly live: ResponseOutcome
  readonly shadow: ResponseOutcome
  /** The patch from live to shadow; empty when they matched (or a side failed). */
  readonly ops: readonly Pick<PatchOp, 'op' | 'path'>[]
}

/** Status 0 marks a failed side, whose body is its error text (docs/diff.md). */
export interface ResponseOutcome {
  readonly status: number
  readonly body: Uint8Array | string
}

/**
 * The signature of a capture, or undefined when it has none (the responses
 * matched): an `error` signature when a side failed, as the comparison
 * decides (a failed side decides alone), else the `diff` signature of its
 * patch, as `signDiff` gives it (`diffSignature`, or a memo of it:
 * diff-signature-memo.ts).
 */
export function signatureOf(
  endpoint: Endpoint,
  subject: SignatureSubject,
  signDiff: (endpoint: Endpoint, ops: SignatureSubject['ops']) => DiffSignature | undefined = diffSignature,
): Signature | undefined {
  const { live, shadow } = subject
  if (live.status === 0 || shadow.status === 0) {
    return errorSignature(endpoint, failureClassOf(live), failureClassOf(shadow))
  }
  return signDiff(endpoint, subject.ops)
}

/**
 * The `diff` signature of a patch on an endpoint; undefined for an empty
 * patch. Operation order, array indices and identifier-like keys do not
 * change it (docs/insights.md "Signatures").
 */
export function diffSignature(
  endpoint: Endpoint,
  ops: readonly Pick<PatchOp, 'op' | 'path'>[],
): DiffSignature | undefined {
  if (ops.length === 0) return undefined
  const distinct = new Map<string, SignatureOp>()
  for (const { op, path } of ops) {
    const general = generalisedPath(path)
    // An op name holds no space, so the key tells pairs apart.
    const key = op + ' ' + general
    // Frozen through and through: a signature may be shared (diff-signature-memo.ts).
    if (!distinct.has(key)) distinct.set(key, Object.freeze({ op, path: general }))
  }
  const sorted = [...distinct.values()].sort(byPathThenOp)
  const truncated = sorted.length > MAX_SIGNATURE_OPS
  const content = {
    kind: 'diff',
    method: endpoint.method,
    template: endpoint.template,
    overflow: false,
    ops: Object.freeze(truncated ? sorted.slice(0, MAX_SIGNATURE_OPS) : sorted),
    truncated,
  } as const
  return Object.freeze({ id: signatureId(content), ...content })
}

/** The `error` signature of an endpoint whose live and/or shadow side failed with these classes. */
export function errorSignature(
  endpoint: Endpoint,
  liveError: ErrorClass | null,
  shadowError: ErrorClass | null,
): ErrorSignature {
  const content = {
    kind: 'error',
    method: endpoint.method,
    template: endpoint.template,
    overflow: false,
    liveError,
    shadowError,
  } as const
  return Object.freeze({ id: signatureId(content), ...content })
}

/** Code-unit order, the same in every JavaScript engine. */
function byPathThenOp(a: SignatureOp, b: SignatureOp): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1
  return a.op < b.op ? -1 : a.op > b.op ? 1 : 0
}

/** Error texts are short; their start is all a class needs. */
const ERROR_TEXT_BYTES = 256
const decoder = new TextDecoder()

/** The class of a failed side's error (`signature.liveError`, `shadowError`); null for a side that answered. */
export function failureClassOf(response: ResponseOutcome): ErrorClass | null {
  if (response.status !== 0) return null
  const { body } = response
  const text =
    typeof body === 'string' ? body : decoder.decode(body.subarray(0, ERROR_TEXT_BYTES))
  return errorClassOf(text)
}
