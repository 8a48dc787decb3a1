import { braces, Metric, type LabelNames, type MetricOptions } from './metric.ts'
import { formatSampleValue } from './exposition.ts'
import type { GaugeFamily, GaugeMerge } from './metrics-snapshot.ts'

/** A gauge bound to one set of label values. */
export class GaugeChild {
  value = 0

  constructor(readonly labelPairs: string) {}

  set(value: number): void {
    this.value = value
  }

  /** @default amount 1 */
  inc(amount = 1): void {
    this.value += amount
  }

  /** @default amount 1 */
  dec(amount = 1): void {
    this.value -= amount
  }

  get(): number {
    return this.value
  }
}

export interface GaugeOptions<L extends LabelNames> extends MetricOptions<L> {
  /**
   * Called at scrape time, before rendering, to set the gauge from its source
   * (connection pool stats, breaker state, memory): values nobody needs to
   * track per request. Keep it synchronous and cheap.
   */
  readonly collect?: (gauge: Gauge<L>) => void
  /**
   * How the values of several worker processes make the one `/metrics`
   * shows (docs/metrics.md "Several workers"): `sum` for a share each
   * process holds, `max` for the worst or a flag any process raises, `min`
   * for the earliest or a flag every process must raise.
   * @default 'sum'
   */
  readonly merge?: GaugeMerge
}

/** A value that goes up and down (in-flight callbacks, pool size, breaker state). */
export class Gauge<L extends LabelNames = readonly []> extends Metric<L, GaugeChild> {
  readonly type = 'gauge'
  /** How several processes' values merge (GaugeOptions.merge). */
  readonly merge: GaugeMerge
  private readonly onCollect: ((gauge: Gauge<L>) => void) | undefined

  constructor(options: GaugeOptions<L>) {
    super(options)
    this.onCollect = options.collect
    this.merge = options.merge ?? 'sum'
  }

  /** Sets the unlabelled gauge; throws if the gauge has labels. */
  set(value: number): void {
    this.solo.set(value)
  }

  /** @default amount 1 */
  inc(amount = 1): void {
    this.solo.inc(amount)
  }

  /** @default amount 1 */
  dec(amount = 1): void {
    this.solo.dec(amount)
  }

  /** The unlabelled gauge's value. */
  get(): number {
    return this.solo.value
  }

  override collect(): void {
    this.onCollect?.(this)
  }

  protected createChild(labelPairs: string): GaugeChild {
    return new GaugeChild(labelPairs)
  }

  protected renderChild(child: GaugeChild, out: string[]): void {
    out.push(`${this.name}${braces(child.labelPairs)} ${formatSampleValue(child.value)}`)
  }

  protected snapshotOf(children: readonly GaugeChild[]): GaugeFamily {
    const series = children.map((child) => ({ labels: child.labelPairs, value: child.value }))
    return { type: 'gauge', name: this.name, help: this.help, merge: this.merge, series }
  }
}
