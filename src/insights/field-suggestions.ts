import { fieldPathOf } from './field-path-of.ts'
import { classifyField, NOISE_RULE, type FieldClassification, type NoiseRule } from './noise-classification.ts'
import type { ValueShape, VolatileShape } from './value-shape.ts'
import { wilsonInterval } from './wilson-interval.ts'

/**
 * Proposed `ignored_fields` entries (docs/insights.md "Suggestions"),
 * from a window's field statistics: pure, the store gathers the rows and
 * the value samples.
 */
export const SUGGESTION_REASONS = ['noise', 'volatile'] as const
export type SuggestionReason = (typeof SUGGESTION_REASONS)[number]

/** One field of one endpoint over the window, as listFields counts it. */
export interface FieldRow {
  readonly method: string
  readonly template: string
  readonly op: 'add' | 'remove' | 'replace'
  /** The generalised signature path, as listFields gives it. */
  readonly path: string
  readonly count: number
  /** The endpoint's requests and noise checks in the window. */
  readonly requests: number
  readonly noiseChecks: number
  readonly noiseCount: number
}

export interface SuggestionEvidence {
  /** Requests of the suggestion's endpoints in the window. */
  readonly requests: number
  /** Those whose diff (live against the shadow) holds the field. */
  readonly count: number
  /** count / requests. */
  readonly rate: number
  readonly noise_checks: number
  /** Noise checks whose noise patch holds the field. */
  readonly noise_count: number
  /** noise_count / noise_checks; null without noise checks. */
  readonly noise_rate: number | null
  /** `volatile`: the most common shape of the sampled values; null for `noise`. */
  readonly shape: VolatileShape | null
  /** `volatile`: how many values were sampled; 0 for `noise`. */
  readonly samples: number
}

export interface Suggestion {
  /** In the notation of ignored_fields, wildcards included. */
  readonly field: string
  readonly reason: SuggestionReason
  readonly evidence: SuggestionEvidence
  /** The endpoints whose counts support it; the entry, once saved, applies to every endpoint of the gate. */
  readonly endpoints: Array<{ method: string; template: string }>
}

/** The thresholds of the volatile rule; VOLATILE_RULE holds the documented ones. */
export interface VolatileRule {
  /** The lowest rate (Wilson lower bound, 95 %) of captures of the endpoint that differ in the field. */
  readonly minRate: number
  /** Values sampled, at least. */
  readonly minSamples: number
  /** The share of sampled values with a volatile shape, at least. */
  readonly minVolatileShare: number
}

export const VOLATILE_RULE: VolatileRule = Object.freeze({ minRate: 0.8, minSamples: 5, minVolatileShare: 0.9 })

export interface SuggestionInput {
  readonly rows: readonly FieldRow[]
  /** The shapes of the shadow's values of a replaced field on an endpoint (recent captures, bounded). */
  readonly shapesOf: (row: FieldRow) => readonly ValueShape[]
  /** Whether the gate's diff_config already leaves this signature path out of the comparison. */
  readonly isIgnored: (signaturePath: string) => boolean
  readonly noiseRule?: NoiseRule
  readonly volatileRule?: VolatileRule
}

/** Whether a row could be volatile, before its values are sampled (the caller samples only these). */
export function mayBeVolatile(row: FieldRow, rule: VolatileRule = VOLATILE_RULE): boolean {
  return (
    row.op === 'replace' &&
    row.noiseChecks === 0 &&
    wilsonInterval(row.count, row.requests, NOISE_RULE.z).low >= rule.minRate &&
    !isRoot(row.path)
  )
}

/** `/body`, `/status`, a header map: ignoring one whole would hide every difference in it. */
function isRoot(path: string): boolean {
  return path.indexOf('/', 1) === -1
}

interface Support {
  readonly row: FieldRow
  readonly reason: SuggestionReason
  readonly shape: VolatileShape | null
  readonly samples: number
}

/**
 * The suggestions: fields classified `noise` on an endpoint, and fields
 * with no noise checks on an endpoint that differ in nearly every capture
 * with volatile-looking values (`volatile`). Rows are grouped by the field
 * path they would be ignored under; a group is never suggested when any of
 * its rows is classified `real` (the entry would silence it, on every
 * endpoint), nor when the gate already ignores the path, nor for a whole
 * body, status or header map. Noise before volatile, then by count.
 */
export function fieldSuggestions(input: SuggestionInput): Suggestion[] {
  const noiseRule = input.noiseRule ?? NOISE_RULE
  const volatileRule = input.volatileRule ?? VOLATILE_RULE
  const groups = new Map<string, { real: boolean; support: Support[] }>()
  for (const row of input.rows) {
    const field = fieldPathOf(row.path)
    if (field === undefined || isRoot(row.path)) continue
    const classification: FieldClassification = classifyField(row, noiseRule)
    const group = groups.get(field) ?? { real: false, support: [] }
    groups.set(field, group)
    if (classification === 'real') group.real = true
    else if (classification === 'noise') group.support.push({ row, reason: 'noise', shape: null, samples: 0 })
    else if (mayBeVolatile(row, volatileRule)) {
      const shape = volatileShape(input.shapesOf(row), volatileRule)
      if (shape !== undefined) group.support.push({ row, reason: 'volatile', ...shape })
    }
  }
  const out: Suggestion[] = []
  for (const [field, group] of groups) {
    if (group.real || group.support.length === 0 || input.isIgnored(group.support[0]!.row.path)) continue
    out.push(suggestion(field, group.support))
  }
  return out.sort(
    (a, b) =>
      (a.reason === b.reason ? 0 : a.reason === 'noise' ? -1 : 1) ||
      b.evidence.count - a.evidence.count ||
      (a.field < b.field ? -1 : a.field > b.field ? 1 : 0),
  )
}

/** The predominant volatile shape of enough samples, mostly volatile; undefined otherwise. */
function volatileShape(shapes: readonly ValueShape[], rule: VolatileRule): { shape: VolatileShape; samples: number } | undefined {
  if (shapes.length < rule.minSamples) return undefined
  const counts = new Map<VolatileShape, number>()
  let volatile = 0
  for (const shape of shapes) {
    if (shape === 'other') continue
    volatile++
    counts.set(shape, (counts.get(shape) ?? 0) + 1)
  }
  if (volatile < rule.minVolatileShare * shapes.length) return undefined
  const [shape] = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]!
  return { shape, samples: shapes.length }
}

/** One suggestion from the rows that support it: per endpoint its busiest supporting row, summed. */
function suggestion(field: string, support: readonly Support[]): Suggestion {
  const byEndpoint = new Map<string, Support>()
  for (const s of support) {
    const key = `${s.row.method} ${s.row.template}`
    const known = byEndpoint.get(key)
    if (known === undefined || s.row.count > known.row.count || (s.reason === 'noise' && known.reason !== 'noise')) {
      byEndpoint.set(key, s)
    }
  }
  const chosen = [...byEndpoint.values()].sort(
    (a, b) => (a.row.template < b.row.template ? -1 : a.row.template > b.row.template ? 1 : a.row.method < b.row.method ? -1 : 1),
  )
  const sum = (f: (s: Support) => number) => chosen.reduce((total, s) => total + f(s), 0)
  const requests = sum((s) => s.row.requests)
  const count = sum((s) => s.row.count)
  const noiseChecks = sum((s) => s.row.noiseChecks)
  const noiseCount = sum((s) => s.row.noiseCount)
  const noisy = chosen.some((s) => s.reason === 'noise')
  const shapes = new Map<VolatileShape, number>()
  for (const s of chosen) if (s.shape !== null) shapes.set(s.shape, (shapes.get(s.shape) ?? 0) + s.samples)
  const shape = noisy ? null : ([...shapes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? null)
  return {
    field,
    reason: noisy ? 'noise' : 'volatile',
    evidence: {
      requests,
      count,
      rate: requests > 0 ? count / requests : 0,
      noise_checks: noiseChecks,
      noise_count: noiseCount,
      noise_rate: noiseChecks > 0 ? noiseCount / noiseChecks : null,
      shape,
      samples: noisy ? 0 : sum((s) => s.samples),
    },
    endpoints: chosen.map((s) => ({ method: s.row.method, template: s.row.template })),
  }
}
