import type { PatchOp } from '../diff/patch-op.ts'
import type { ErrorClass } from './error-class.ts'

/**
 * A diff signature: one kind of difference on one endpoint, shared by every
 * capture that differs the same way (docs/insights.md "Signatures").
 *
 * - `diff`: the comparison found a difference; `ops` is the sorted set of
 *   `(op, path)` of its patch with indices and identifier-like keys
 *   generalised (signature-path.ts), at most MAX_SIGNATURE_OPS of them
 *   (`truncated` says whether more were left out).
 * - `error`: an upstream failed (status 0); the class of each failed side,
 *   null for a side that answered.
 * - `overflow`: the gate had too many signatures when this one appeared; it
 *   stands for every new one of its endpoint and kind (signature-cap.ts),
 *   with no ops and no error class.
 *
 * `id` is a short hash of everything else (signature-id.ts), the same in
 * every process. Types only, so that the hub can import them.
 */
export type Signature = DiffSignature | ErrorSignature

export interface DiffSignature extends SignatureBase {
  readonly kind: 'diff'
  readonly ops: readonly SignatureOp[]
  readonly truncated: boolean
}

export interface ErrorSignature extends SignatureBase {
  readonly kind: 'error'
  readonly liveError: ErrorClass | null
  readonly shadowError: ErrorClass | null
}

interface SignatureBase {
  readonly id: string
  readonly method: string
  readonly template: string
  readonly overflow: boolean
}

/** One generalised operation of a diff signature. */
export interface SignatureOp {
  readonly op: PatchOp['op']
  readonly path: string
}

/** The two kinds, defined once for runtime checks and the type. */
export const SIGNATURE_KINDS = ['diff', 'error'] as const satisfies readonly Signature['kind'][]
export type SignatureKind = (typeof SIGNATURE_KINDS)[number]

/** The content a signature's id is computed from: everything but the id. */
export type SignatureContent = DistributiveOmit<Signature, 'id'>
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never

/**
 * Distinct operations a diff signature keeps. A patch that differs in more
 * places after generalisation is one of a kind anyway (a different
 * document); keeping its first operations bounds what is stored per
 * signature.
 */
export const MAX_SIGNATURE_OPS = 100
