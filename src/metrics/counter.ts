import { braces, Metric, type LabelNames, type MetricOptions } from './metric.ts'
import { formatSampleValue } from './exposition.ts'
import type { CounterFamily } from './metrics-snapshot.ts'

/** A counter bound to one set of label values. */
export class CounterChild {
  value = 0

  constructor(readonly labelPairs: string) {}

  /**
   * Adds to the counter. A counter only goes up, and metrics must never throw
   * on the request path, so a negative, zero or NaN amount is ignored.
   * @default amount 1
   */
  inc(amount = 1): void {
    if (amount > 0) this.value += amount
  }

  get(): number {
    return this.value
  }
}

export interface CounterOptions<L extends LabelNames> extends MetricOptions<L> {
  /**
   * Called at scrape time, before rendering, to bring the counter up to date
   * from a source that keeps its own total (process CPU time, say): increment
   * by the difference from `get()`.
   */
  readonly collect?: (counter: Counter<L>) => void
}

/** A monotonically increasing total (`svc_responses_compared_total`, ...). */
export class Counter<L extends LabelNames = readonly []> extends Metric<L, CounterChild> {
  readonly type = 'counter'
  private readonly onCollect: ((counter: Counter<L>) => void) | undefined

  constructor(options: CounterOptions<L>) {
    super(options)
    this.onCollect = options.collect
  }

  /** Increments the unlabelled counter; throws if the counter has labels. */
  inc(amount = 1): void {
    this.solo.inc(amount)
  }

  /** The unlabelled counter's value. */
  get(): number {
    return this.solo.value
  }

  override collect(): void {
    this.onCollect?.(this)
  }

  protected createChild(labelPairs: string): CounterChild {
    return new CounterChild(labelPairs)
  }

  protected renderChild(child: CounterChild, out: string[]): void {
    out.push(`${this.name}${braces(child.labelPairs)} ${formatSampleValue(child.value)}`)
  }

  protected snapshotOf(children: readonly CounterChild[]): CounterFamily {
    const series = children.map((child) => ({ labels: child.labelPairs, value: child.value }))
    return { type: 'counter', name: this.name, help: this.help, series }
  }
}
