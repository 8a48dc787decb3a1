import { automaticTemplate, diffSignature, signatureOf, type Signature } from '../insights/index.ts'
import type { InsightCatalog } from './insight-catalog.ts'
import type { CaptureInput } from './rows.ts'

/** What a capture is counted under in the insight rollups, within its gate's caps. */
export interface CaptureInsight {
  readonly template: string
  /** Undefined for a capture without a diff. */
  readonly signature: Signature | undefined
  /** The signature of its noise patch; undefined unless its noise check was `noisy`. */
  readonly noiseSignature: Signature | undefined
}

/**
 * The endpoint template and signature a capture is stored with
 * (docs/insights.md): the template given with it (the API applies the
 * gate's explicit templates) or else the automatic one; then, for a
 * capture with a diff, the signature of that endpoint, live and shadow
 * outcomes and patch; for a noisy noise check, the diff signature of its
 * noise patch on the same endpoint. Each is admitted by the catalog, which
 * may turn it into `(other)`; the signatures are computed on the admitted
 * template.
 */
export async function captureInsight(catalog: InsightCatalog, gateId: string, capture: CaptureInput): Promise<CaptureInsight> {
  const template = await catalog.template(gateId, capture.template ?? automaticTemplate(capture.path))
  const endpoint = { method: capture.method, template }
  const noise = capture.noise_check
  const noisy = noise?.result === 'noisy' ? diffSignature(endpoint, noise.ops) : undefined
  const noiseSignature = noisy && (await catalog.signature(gateId, noisy))
  if (!capture.has_diff) return { template, signature: undefined, noiseSignature }
  const signature = signatureOf(endpoint, {
    live: { status: capture.live_response.status_code, body: capture.live_response.body },
    shadow: { status: capture.shadow_response.status_code, body: capture.shadow_response.body },
    ops: capture.diff,
  })
  return { template, signature: signature && (await catalog.signature(gateId, signature)), noiseSignature }
}
