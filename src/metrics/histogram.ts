import { HTTP_DURATION_BUCKETS } from './buckets.ts'
import { formatSampleValue } from './exposition.ts'
import { braces, Metric, type LabelNames, type MetricOptions } from './metric.ts'
import type { HistogramFamily } from './metrics-snapshot.ts'

/**
 * A histogram bound to one set of label values. It keeps per-bucket counts
 * (not cumulative) so that an observation is one short scan and three adds;
 * the cumulative `_bucket` series are summed at scrape time.
 */
export class HistogramChild {
  /** One slot per bound, plus a last one for observations above every bound (`+Inf`). */
  readonly counts: Float64Array
  sum = 0
  count = 0

  constructor(
    readonly labelPairs: string,
    private readonly bounds: Float64Array,
  ) {
    this.counts = new Float64Array(bounds.length + 1)
  }

  /** Records one observation. NaN is ignored: it would turn `_sum` into NaN for good. */
  observe(value: number): void {
    if (value !== value) return
    const bounds = this.bounds
    const n = bounds.length
    // A linear scan beats a binary search on a dozen bounds, and typical
    // observations fall in the first buckets. `le` is inclusive.
    let i = 0
    while (i < n && value > bounds[i]) i++
    this.counts[i]++
    this.sum += value
    this.count++
  }
}

export interface HistogramOptions<L extends LabelNames> extends MetricOptions<L> {
  /**
   * Bucket upper bounds, strictly increasing and finite; `+Inf` is implied.
   * @default HTTP_DURATION_BUCKETS
   */
  readonly buckets?: readonly number[]
}

/** A distribution over fixed buckets (`http_server_request_duration_seconds`, ...). */
export class Histogram<L extends LabelNames = readonly []> extends Metric<L, HistogramChild> {
  readonly type = 'histogram'
  /** The upper bounds, without the implied `+Inf`. */
  readonly buckets: readonly number[]
  private readonly bounds: Float64Array
  /** `le` label values, formatted once. */
  private readonly le: readonly string[]

  constructor(options: HistogramOptions<L>) {
    super(options, ['le'])
    const buckets = validateBuckets(options.name, options.buckets ?? HTTP_DURATION_BUCKETS)
    this.buckets = Object.freeze(buckets)
    this.bounds = Float64Array.from(buckets)
    this.le = [...buckets.map(formatSampleValue), '+Inf']
  }

  /** Records one observation on the unlabelled histogram; throws if it has labels. */
  observe(value: number): void {
    this.solo.observe(value)
  }

  protected createChild(labelPairs: string): HistogramChild {
    return new HistogramChild(labelPairs, this.bounds)
  }

  protected renderChild(child: HistogramChild, out: string[]): void {
    const pairs = child.labelPairs
    const prefix = `${this.name}_bucket{${pairs}${pairs === '' ? '' : ','}le="`
    let cumulative = 0
    for (let i = 0; i < this.le.length; i++) {
      cumulative += child.counts[i]
      out.push(`${prefix}${this.le[i]}"} ${cumulative}`)
    }
    out.push(
      `${this.name}_sum${braces(pairs)} ${formatSampleValue(child.sum)}`,
      `${this.name}_count${braces(pairs)} ${child.count}`,
    )
  }

  protected snapshotOf(children: readonly HistogramChild[]): HistogramFamily {
    const series = children.map((child) => ({
      labels: child.labelPairs,
      counts: Array.from(child.counts),
      sum: child.sum,
      count: child.count,
    }))
    return { type: 'histogram', name: this.name, help: this.help, buckets: this.buckets, series }
  }
}

function validateBuckets(name: string, buckets: readonly number[]): number[] {
  const bounds = buckets.at(-1) === Infinity ? buckets.slice(0, -1) : [...buckets]
  if (bounds.length === 0) throw new TypeError(`histogram ${name}: needs at least one bucket`)
  for (let i = 0; i < bounds.length; i++) {
    if (!Number.isFinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1])) {
      throw new TypeError(`histogram ${name}: buckets must be finite and strictly increasing`)
    }
  }
  return bounds
}
