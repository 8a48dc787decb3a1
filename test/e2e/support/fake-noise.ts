import { ignorePathOf } from '../../../hub/src/lib/ignore-path.ts'
import { compareResponses, compileCaptureOptions } from '../../../src/diff/index.ts'
import type { DiffConfig } from '../../../src/diff/index.ts'
import { signatureOf, endpointOf } from '../../../src/insights/index.ts'
import type { FakeData, FakeGate, FakeRequest } from './fake-data.ts'
import type { Job } from '../../../src/store/job-store.ts'

/**
 * The fake API's noise reads and diff-settings work, for the hub's smoke
 * test and `--fake` screenshots: the fields' noise classification, the
 * suggestions, the preview and re-diff jobs, with the shapes of the real
 * API (docs/reference/api.md). Previews and re-diffs compare the fake
 * captures' stored bodies with the project's own diff engine; noise comes
 * from a fixed table (the fake has no repeats of live). `controls` lets a
 * test make the next previews answer 409 or fail, and step a job.
 */

/** Per generalised field path: the share of noise checks in which it differed. */
export const FAKE_NOISE: Readonly<Record<string, number>> = {
  '/body/shipping/eta_days': 0.25,
  '/headers/X-Service-Version/0': 0,
  '/body/total': 0,
}

/** The share of an endpoint's captures that had a noise check. */
const CHECKED_SHARE = 0.5
/** Fewer noise checks than this classify nothing (docs/insights.md "Noise"). */
const MIN_CHECKS = 5

export interface FakeControls {
  /** Answer this many previews 409, as while another preview of the gate runs. */
  previewConflicts: number
  /** Answer previews 503. */
  previewFails: boolean
  /** Previews wait this long (ms) before answering. */
  previewDelayMs: number
  /** Captures a job re-diffs per read of it. */
  jobStep: number
}

/** A job as the API shows it (the fake API's jobs). */
export type FakeJob = Job

export function fakeControls(): FakeControls {
  return { previewConflicts: 0, previewFails: false, previewDelayMs: 0, jobStep: 40 }
}

type Row = Record<string, unknown>

/** A field row with its noise counts and classification. */
export function withNoise(row: Row): Row {
  const requests = Math.round(Number(row.count) / Math.max(Number(row.rate), 1e-9))
  const noiseChecks = Math.floor(requests * CHECKED_SHARE)
  const share = FAKE_NOISE[String(row.path)]
  const noiseCount = share === undefined ? 0 : Math.round(noiseChecks * share)
  const noiseRate = noiseChecks > 0 ? noiseCount / noiseChecks : null
  const classification = noiseChecks < MIN_CHECKS ? 'unknown' : noiseRate !== null && noiseRate * 2 >= Number(row.rate) ? 'noise' : 'real'
  return { ...row, noise_checks: noiseChecks, noise_count: noiseCount, noise_rate: noiseRate, classification }
}

/** Suggestions from field rows: every field classified noise, and none already ignored. */
export function suggestionRows(fields: readonly Row[], gate: FakeGate): Row[] {
  const out = new Map<string, Row & { endpoints: { method: string; template: string }[] }>()
  for (const f of fields.map(withNoise)) {
    if (f.classification !== 'noise') continue
    const field = ignorePathOf(String(f.path))
    if (!field || gate.diff_config.ignored_fields.includes(field)) continue
    const row = out.get(field) ?? {
      field,
      reason: 'noise',
      evidence: {
        requests: Math.round(Number(f.count) / Number(f.rate)),
        count: f.count,
        rate: f.rate,
        noise_checks: f.noise_checks,
        noise_count: f.noise_count,
        noise_rate: f.noise_rate,
        shape: null,
        samples: 0,
      },
      endpoints: [],
    }
    row.endpoints.push({ method: String(f.method), template: String(f.template) })
    out.set(field, row)
  }
  return [...out.values()]
}

function compare(r: FakeRequest, config: DiffConfig, gate: FakeGate) {
  const side = (s: FakeRequest['live_response']) => ({ status: s.status_code, headers: s.headers, body: Buffer.from(s.body, 'base64') })
  return compareResponses(side(r.live_response), side(r.shadow_response), compileCaptureOptions({ diff: config, redactedFields: gate.redacted_fields }))
}

function signatureId(r: FakeRequest, ops: FakeRequest['diff']['content']): string | undefined {
  const endpoint = endpointOf(r.method, r.path)
  return signatureOf(endpoint, {
    live: { status: r.live_response.status_code, body: Buffer.from(r.live_response.body, 'base64') },
    shadow: { status: r.shadow_response.status_code, body: Buffer.from(r.shadow_response.body, 'base64') },
    ops,
  })?.id
}

/** The preview of `candidate` on the `limit` most recent captures since `from`, as the API answers it. */
export function previewOf(all: readonly FakeRequest[], gate: FakeGate, candidate: DiffConfig, from: number, limit: number) {
  const recent = all
    .filter((r) => Date.parse(r.created_at) >= from)
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, limit)
  let before = 0
  let after = 0
  const silenced: string[] = []
  const surfaced: string[] = []
  const counts = new Map<string, { id: string; count_before: number; count_after: number }>()
  const count = (id: string | undefined, key: 'count_before' | 'count_after') => {
    if (!id) return
    const row = counts.get(id) ?? { id, count_before: 0, count_after: 0 }
    row[key]++
    counts.set(id, row)
  }
  for (const r of recent) {
    const was = r.diff.content.length > 0
    const now = compare(r, candidate, gate)
    const is = now.kind !== 'match'
    const ops = now.kind === 'diff' ? now.ops : r.diff.content
    if (was) before++
    if (is) after++
    if (was && !is) silenced.push(r.id)
    if (!was && is) surfaced.push(r.id)
    if (was) count(signatureId(r, r.diff.content), 'count_before')
    if (is) count(signatureId(r, ops), 'count_after')
  }
  return {
    examined: recent.length,
    diffs_before: before,
    diffs_after: after,
    silenced: silenced.length,
    surfaced: surfaced.length,
    signatures: [...counts.values()].sort((a, b) => b.count_before - a.count_before),
    examples: { silenced: silenced.slice(0, 10), surfaced: surfaced.slice(0, 10) },
  }
}

/** Re-diffs the next `step` captures of a job under the gate's diff_config; stores the new diffs. */
export function advanceJob(job: FakeJob, data: FakeData, gate: FakeGate, queue: string[], step: number): void {
  if (job.state === 'queued') {
    job.state = 'running'
    job.started_at = new Date().toISOString()
    return
  }
  if (job.state !== 'running') return
  const list = data.requests.get(gate.id) ?? []
  for (const id of queue.splice(0, step)) {
    const i = list.findIndex((r) => r.id === id)
    const r = list[i]
    if (!r) continue
    const now = compare(r, gate.diff_config, gate)
    // A new object: the fake's insights are memoised per capture object.
    if (now.kind !== 'error') list[i] = { ...r, diff: { content: now.kind === 'diff' ? now.ops : [] } }
    job.done++
  }
  if (queue.length === 0) {
    job.state = 'done'
    job.finished_at = new Date().toISOString()
  }
}
