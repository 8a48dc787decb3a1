/**
 * Whether one request is shadowed, decided before anything is read or sent,
 * cheapest test first. Every "no" names its reason for
 * `svc_comparisons_skipped_total` (docs/proxy.md "Nothing is lost
 * silently": every request that is not compared is counted by reason).
 *
 * Order: the rules first (deterministic, so `denied_by_rule` counts are
 * stable whatever the rate), then sampling among the requests the rules
 * allow, so SVC_APP_SAMPLING_RATE is the fraction of eligible traffic
 * shadowed. Then the announced body size, the breaker (API mode: a capture
 * that cannot be reported is not worth a shadow request), and last the
 * callbacks bound, whose slot the caller then holds.
 */
import type { SkipReason } from '../../metrics/index.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { exceeds } from './body-bound.ts'
import type { Sampler } from './sampler.ts'
import type { Semaphore } from './semaphore.ts'
import type { ShadowRules } from './shadow-rules.ts'

/**
 * What admission reads, made once per handler. Not the gate resource of
 * the API, nor the module's `svcGate()`: the policy a request passes to be
 * shadowed.
 */
export interface AdmissionPolicy {
  readonly rules: ShadowRules
  readonly sample: Sampler
  readonly maxBodyBytes: number
  readonly breaker: CircuitBreaker | undefined
  readonly callbacks: Semaphore
}

/**
 * `undefined` when the request is shadowed, and then a callbacks slot has
 * been taken; otherwise why not.
 * @param announcedLength the Content-Length, when the request has a body and announces it
 */
export function decideShadow(
  policy: AdmissionPolicy,
  method: string,
  path: string,
  announcedLength: number | undefined,
): SkipReason | undefined {
  if (!policy.rules.shouldShadow(method, path).shadow) return 'denied_by_rule'
  if (!policy.sample()) return 'sampled_out'
  if (announcedLength !== undefined && exceeds(announcedLength, policy.maxBodyBytes)) return 'body_too_large'
  if (policy.breaker !== undefined && policy.breaker.state === 'open') return 'breaker_open'
  if (!policy.callbacks.tryAcquire()) return 'callbacks_full'
  return undefined
}
