import type { CompiledCaptureOptions } from '../diff/index.ts'
import { diffSignature, signatureOf, type Signature } from '../insights/index.ts'
import type { ScannedCapture } from '../store/capture-scan.ts'
import type { RediffItem } from '../store/rediff-chunk.ts'
import { rediffCapture } from './rediff-capture.ts'

/** Admits a signature within the gate's cap, as ingest does (src/store/insight-catalog.ts). */
export type AdmitSignature = (gateId: string, signature: Signature) => Promise<Signature>

/**
 * What a stored capture becomes under `options` (docs/insights.md
 * "Re-diff"): its comparison and noise check made again (rediffCapture),
 * its diff and noise signatures computed on its stored endpoint and
 * admitted within the gate's cap, exactly as createRequest would store
 * the same capture today. A capture stored before templates (none) gets
 * no signature, as it counts in no insight rollup.
 */
export async function rediffItemOf(
  gateId: string,
  capture: ScannedCapture,
  options: CompiledCaptureOptions,
  admit: AdmitSignature,
): Promise<RediffItem> {
  const { comparison, noise } = rediffCapture(capture, options)
  const ops = comparison.kind === 'diff' ? comparison.ops : []
  const endpoint = capture.template === null ? undefined : { method: capture.method, template: capture.template }
  const raw =
    endpoint === undefined || comparison.kind === 'match'
      ? undefined
      : signatureOf(endpoint, {
          live: { status: capture.live_status, body: capture.live_body },
          shadow: { status: capture.shadow_status, body: capture.shadow_body },
          ops,
        })
  const signature = raw && (await admit(gateId, raw))
  const rawNoise = endpoint !== undefined && noise?.result === 'noisy' ? diffSignature(endpoint, noise.ops) : undefined
  const noiseSignature = rawNoise && (await admit(gateId, rawNoise))
  return {
    id: capture.id,
    has_diff: comparison.kind !== 'match',
    diff: ops,
    signature_id: signature?.id ?? null,
    kind: signature?.kind ?? null,
    noise_result: noise?.result ?? null,
    noise_signature_id: noiseSignature?.id ?? null,
    noise: noise === undefined || noise.result === 'error' ? null : noise.ops,
  }
}
