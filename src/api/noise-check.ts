import { processCapture, type CapturedResponse, type CompiledCaptureOptions, type PatchOp } from '../diff/index.ts'
import type { NoiseResult } from '../store/rows.ts'

/** Live's second answer as stored (redacted) and how it compares with live's first. */
export interface NoiseCheck {
  readonly repeat: CapturedResponse
  readonly result: NoiseResult
  /** The noise patch, from live's first answer to its second; empty unless `noisy`. */
  readonly ops: PatchOp[]
}

const NO_REQUEST = { headers: {}, body: new Uint8Array() }

/**
 * A noise check (docs/insights.md "Noise"): live's two answers to the same
 * request compared under the gate's settings, exactly as live and the
 * shadow are (processCapture with the repeat in the shadow's place), and
 * the repeat redacted for storage as the shadow would be. What differs is
 * noise: `quiet` when they matched, `noisy` when they differed, `error`
 * when either failed (status 0). Pure: the caller stores and counts it.
 */
export function noiseCheckOf(live: CapturedResponse, repeat: CapturedResponse, options: CompiledCaptureOptions): NoiseCheck {
  const processed = processCapture({ request: NO_REQUEST, live, shadow: repeat }, options)
  const comparison = processed.comparison
  switch (comparison.kind) {
    case 'match':
      return { repeat: processed.shadow, result: 'quiet', ops: [] }
    case 'diff':
      return { repeat: processed.shadow, result: 'noisy', ops: comparison.ops }
    case 'error':
      return { repeat: processed.shadow, result: 'error', ops: [] }
  }
}
