/**
 * A registry's values as plain data (`Registry.snapshot()`): what a worker
 * process hands its primary, which merges every worker's into the one
 * exposition `/metrics` answers (docs/metrics.md "Several workers"). Plain
 * numbers and strings only, so that it crosses a process boundary with
 * structured clone (NaN and ±Inf included).
 */

/**
 * How the values of one gauge from several processes make one: `sum` for
 * amounts each process holds its share of (memory, connections, work in
 * flight), `max` for the worst or a flag any process raises, `min` for
 * the earliest (a start time) or a flag every process must raise.
 */
export const GAUGE_MERGES = ['sum', 'max', 'min'] as const
export type GaugeMerge = (typeof GAUGE_MERGES)[number]

/** One series of a counter or gauge; `labels` is the rendered `name="value",...`, empty without labels. */
export interface ValueSeries {
  readonly labels: string
  readonly value: number
}

/** One series of a histogram, with per-bucket (not cumulative) counts, `+Inf` last. */
export interface HistogramSeries {
  readonly labels: string
  readonly counts: readonly number[]
  readonly sum: number
  readonly count: number
}

interface FamilyBase {
  readonly name: string
  readonly help: string
}

export interface CounterFamily extends FamilyBase {
  readonly type: 'counter'
  readonly series: readonly ValueSeries[]
}

export interface GaugeFamily extends FamilyBase {
  readonly type: 'gauge'
  readonly merge: GaugeMerge
  readonly series: readonly ValueSeries[]
}

export interface HistogramFamily extends FamilyBase {
  readonly type: 'histogram'
  /** The upper bounds, without the implied `+Inf`. */
  readonly buckets: readonly number[]
  readonly series: readonly HistogramSeries[]
}

export type FamilySnapshot = CounterFamily | GaugeFamily | HistogramFamily

/** Every metric of a registry, in registration order. */
export interface MetricsSnapshot {
  readonly families: readonly FamilySnapshot[]
}
