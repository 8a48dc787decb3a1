import type { FieldClassification } from '../insights/noise-classification.ts'

/** One diff signature's captures in a verdict's window, as listSignatures answers it. */
export interface DiffSignatureCount {
  readonly method: string
  readonly template: string
  readonly ops: ReadonlyArray<{ readonly op: string; readonly path: string }>
  /** Some of its operations were left out: what they touched is unknown. */
  readonly truncated: boolean
  /** The `(other)` signature of an endpoint past its limit: its operations are unknown. */
  readonly overflow: boolean
  readonly count: number
}

/** One field's classification in the same window, as listFields answers it. */
export interface FieldClass {
  readonly method: string
  readonly template: string
  readonly op: string
  readonly path: string
  readonly classification: FieldClassification
}

/**
 * The captures whose difference is noise only (docs/ci.md "Noise"): the
 * sum of the counts of the diff signatures every operation of which
 * touches a field classified `noise` for the signature's endpoint. A
 * signature with one `real` or `unknown` field, or none classified, counts
 * as a difference; so does one whose operations are not all known
 * (truncated, overflow, or none): only what is known to be noise is
 * ignored.
 */
export function noiseOnlyDiffs(signatures: readonly DiffSignatureCount[], fields: readonly FieldClass[]): number {
  const noise = new Set(fields.filter((field) => field.classification === 'noise').map((field) => fieldKey(field.method, field.template, field.op, field.path)))
  let ignored = 0
  for (const signature of signatures) {
    if (signature.truncated || signature.overflow || signature.ops.length === 0) continue
    if (signature.ops.every(({ op, path }) => noise.has(fieldKey(signature.method, signature.template, op, path)))) ignored += signature.count
  }
  return ignored
}

/** A field's key: no method or op holds a space, and NUL is in no stored text. */
function fieldKey(method: string, template: string, op: string, path: string): string {
  return `${method} ${op} ${template}\0${path}`
}
