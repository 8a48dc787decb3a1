import type { Endpoint, KnownSet } from './endpoint.ts'
import { signatureId } from './signature-id.ts'
import type { Signature, SignatureKind } from './signature.ts'

/** Distinct signatures a gate keeps before new ones count under their endpoint's `(other)`. */
export const MAX_SIGNATURES_PER_GATE = 10_000

/**
 * The `(other)` signature of an endpoint and kind: what every new
 * signature of that endpoint and kind counts under once the gate is full.
 * One per kind, so that an endpoint's diffs and errors stay apart.
 */
export function overflowSignature(endpoint: Endpoint, kind: SignatureKind): Signature {
  const base = { method: endpoint.method, template: endpoint.template, overflow: true } as const
  const content =
    kind === 'diff'
      ? { ...base, kind, ops: [], truncated: false }
      : { ...base, kind, liveError: null, shadowError: null }
  return Object.freeze({ id: signatureId(content), ...content })
}

/**
 * The signature to count a capture under, given the ids the gate already
 * has: a known one, or a new one while `known` holds fewer than `max`,
 * stays as it is; a new one past that becomes the overflowSignature of its
 * endpoint and kind, which is always allowed. So a gate holds at most
 * `max` ordinary signatures, plus at most two `(other)` ones per endpoint.
 */
export function signatureWithinCap(
  signature: Signature,
  known: KnownSet,
  max: number = MAX_SIGNATURES_PER_GATE,
): Signature {
  if (signature.overflow || known.has(signature.id) || known.size < max) return signature
  return overflowSignature(signature, signature.kind)
}
