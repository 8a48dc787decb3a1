import { isJsonContainer } from './large-integer.ts'
import type { PatchOp } from './patch-op.ts'

/** Operations shown before "… and N more". */
const MAX_OPS_SHOWN = 20
/** Characters of one value shown before it is cut with "…". */
const MAX_VALUE_LENGTH = 80
/** The whole text never exceeds this, however many operations. */
const MAX_TEXT_LENGTH = 2000

/**
 * A compact, one-line, human-readable rendering of a patch for the proxy's
 * log attribute `diff`: `replace /body/price=12; add /body/tags/1="new";
 * remove /body/legacy`. Values are JSON, cut at 80 characters; at most 20
 * operations are listed. Bounded in time and length whatever the patch.
 */
export function formatPatch(ops: readonly PatchOp[]): string {
  const parts: string[] = []
  let length = 0
  const shown = Math.min(ops.length, MAX_OPS_SHOWN)
  for (let i = 0; i < shown; i++) {
    const op = ops[i]!
    const text =
      op.op === 'remove' ? `remove ${op.path}` : `${op.op} ${op.path}=${preview(op.value)}`
    if (length + text.length > MAX_TEXT_LENGTH) {
      parts.push(`… and ${ops.length - i} more`)
      return parts.join('; ')
    }
    parts.push(text)
    length += text.length + 2
  }
  if (ops.length > shown) parts.push(`… and ${ops.length - shown} more`)
  return parts.join('; ')
}

/** JSON of a value, cut at MAX_VALUE_LENGTH without serialising all of a large value. */
function preview(value: unknown): string {
  const out = { text: '' }
  write(value, out, 0)
  return out.text.length > MAX_VALUE_LENGTH
    ? out.text.slice(0, MAX_VALUE_LENGTH - 1) + '…'
    : out.text
}

/** Appends JSON until the preview is long enough; depth-bounded (operation values are). */
function write(value: unknown, out: { text: string }, depth: number): void {
  if (out.text.length > MAX_VALUE_LENGTH) return
  if (typeof value === 'string') {
    // Only the start of a long string can be shown: do not escape all of it.
    out.text += JSON.stringify(
      value.length > MAX_VALUE_LENGTH ? value.slice(0, MAX_VALUE_LENGTH) : value,
    )
    return
  }
  // A large integer (large-integer.ts) is written as its digits.
  if (!isJsonContainer(value)) {
    out.text += value === undefined ? 'null' : JSON.stringify(value)
    return
  }
  if (depth > 32) {
    out.text += '…'
    return
  }
  if (Array.isArray(value)) {
    out.text += '['
    for (let i = 0; i < value.length && out.text.length <= MAX_VALUE_LENGTH; i++) {
      if (i > 0) out.text += ','
      write(value[i], out, depth + 1)
    }
    out.text += ']'
    return
  }
  out.text += '{'
  let first = true
  for (const key in value as Record<string, unknown>) {
    if (out.text.length > MAX_VALUE_LENGTH) break
    out.text += (first ? '' : ',') + JSON.stringify(key) + ':'
    first = false
    write((value as Record<string, unknown>)[key], out, depth + 1)
  }
  out.text += '}'
}
