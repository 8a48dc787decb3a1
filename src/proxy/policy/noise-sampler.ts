/**
 * Which shadowed requests get a noise check (docs/proxy.md "Noise check"):
 * live is asked the same thing a second time, and what differs between its
 * two answers is noise, not a difference the shadow made. Asking twice is
 * safe only for a request that changes nothing, so only GET, HEAD and
 * OPTIONS without a body are repeated, a sampled fraction of them, at most
 * so many a second: the repeats are extra load on live.
 *
 * Pure decisions; the repeat itself is `pipeline/repeat-live.ts`.
 */
import type { NoiseSkipReason } from '../../metrics/index.ts'
import { RateWindow } from './rate-window.ts'
import { createSampler, type RandomSource, type Sampler } from './sampler.ts'

/** Repeated: the safe methods of RFC 9110 §9.2.1 but TRACE, which echoes the request rather than answering it. */
export const NOISE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])

/** SVC_APP_NOISE_SAMPLE_RATE, the module's `noise_sample_rate`: off. */
export const DEFAULT_NOISE_SAMPLE_RATE = 0
/** SVC_APP_NOISE_MAX_PER_SECOND, the module's `noise_max_per_second`. */
export const DEFAULT_NOISE_MAX_PER_SECOND = 5
/** The largest SVC_APP_NOISE_MAX_PER_SECOND: the rate window keeps one timestamp per repeat of the last second. */
export const MAX_NOISE_PER_SECOND = 10_000

/**
 * What a shadowed request gets: `sampled` (a repeat once live's answer is
 * in, if the rate window has room), `unsampled` (nothing, nothing
 * counted), or why a sampled request gets none.
 */
export type NoiseChoice = 'sampled' | 'unsampled' | Extract<NoiseSkipReason, 'method' | 'body'>

export interface NoiseSamplerOptions {
  /** Fraction of the shadowed requests sampled, 0 to 1; 0 is off. */
  readonly sampleRate: number
  /** Repeats allowed in any one second, 1 to MAX_NOISE_PER_SECOND. */
  readonly maxPerSecond: number
  /** @default Math.random */
  readonly random?: RandomSource
  /** A monotonic clock in ms. @default performance.now */
  readonly now?: () => number
}

export class NoiseSampler {
  private readonly sample: Sampler
  private readonly window: RateWindow

  constructor(options: NoiseSamplerOptions) {
    this.sample = createSampler(options.sampleRate, options.random)
    this.window = new RateWindow(options.maxPerSecond, 1000, options.now)
  }

  /**
   * Decided when the request is shadowed: sampling first, so that the
   * skips counted are of sampled requests only, whatever the rate.
   * @param hadBody the client's request had a body (read, or announced by a Content-Length above 0)
   */
  choose(method: string, hadBody: boolean): NoiseChoice {
    if (!this.sample()) return 'unsampled'
    if (!NOISE_METHODS.has(method)) return 'method'
    if (hadBody) return 'body'
    return 'sampled'
  }

  /** Decided when live's answer is in, just before the repeat is sent: false when the second is full. */
  tryRepeat(): boolean {
    return this.window.tryTake()
  }
}
