import { Counter, type CounterOptions } from './counter.ts'
import { Gauge, type GaugeOptions } from './gauge.ts'
import { Histogram, type HistogramOptions } from './histogram.ts'
import type { LabelNames, Metric } from './metric.ts'
import type { MetricsSnapshot } from './metrics-snapshot.ts'

export interface RegistryOptions {
  /**
   * Told when a scrape-time callback throws. The scrape goes on with the
   * values from before, so one broken source does not hide every metric.
   * @default ignores the error
   */
  readonly onCollectError?: (error: unknown, metricName: string | undefined) => void
}

/**
 * The metrics of one component, rendered for `GET /metrics`. Each component
 * makes its own registry; there is no global one, so tests and the one-box
 * demo never share series by accident.
 */
export class Registry {
  private readonly metrics = new Map<string, Metric<LabelNames, unknown>>()
  /** Every sample name in use, suffixes included, so a histogram `x` and a gauge `x_count` cannot clash. */
  private readonly sampleNames = new Set<string>()
  private readonly collectors = new Set<() => void>()
  private readonly onCollectError: NonNullable<RegistryOptions['onCollectError']>

  constructor(options: RegistryOptions = {}) {
    this.onCollectError = options.onCollectError ?? (() => {})
  }

  counter<const L extends LabelNames = readonly []>(options: CounterOptions<L>): Counter<L> {
    return this.add(new Counter(options), [options.name])
  }

  gauge<const L extends LabelNames = readonly []>(options: GaugeOptions<L>): Gauge<L> {
    return this.add(new Gauge(options), [options.name])
  }

  histogram<const L extends LabelNames = readonly []>(options: HistogramOptions<L>): Histogram<L> {
    const { name } = options
    return this.add(new Histogram(options), [`${name}_bucket`, `${name}_sum`, `${name}_count`])
  }

  /** The metric registered under this name. */
  get(name: string): Metric<LabelNames, unknown> | undefined {
    return this.metrics.get(name)
  }

  /**
   * Adds a callback run at the start of every scrape, for sources that feed
   * several metrics from one read (`/proc/self/stat`, `process.memoryUsage()`).
   * Returns a function that removes it.
   */
  addCollector(collect: () => void): () => void {
    this.collectors.add(collect)
    return () => this.collectors.delete(collect)
  }

  /** Every metric in Prometheus text format 0.0.4, in registration order, ending with a newline. */
  render(): string {
    for (const collect of this.collectors) this.safely(collect, undefined)
    const out: string[] = []
    for (const metric of this.metrics.values()) {
      this.safely(() => metric.collect(), metric.name)
      metric.renderTo(out)
    }
    out.push('')
    return out.join('\n')
  }

  /**
   * Every metric's values as plain data, after the same scrape-time
   * callbacks as render(): what a worker process sends its primary, which
   * merges and renders them (renderSnapshot of one snapshot is render()).
   */
  snapshot(): MetricsSnapshot {
    for (const collect of this.collectors) this.safely(collect, undefined)
    const families = []
    for (const metric of this.metrics.values()) {
      this.safely(() => metric.collect(), metric.name)
      families.push(metric.snapshot())
    }
    return { families }
  }

  private add<M extends Metric<LabelNames, unknown>>(metric: M, sampleNames: string[]): M {
    for (const name of [metric.name, ...sampleNames]) {
      if (this.metrics.has(name) || this.sampleNames.has(name)) {
        throw new TypeError(`metric ${metric.name}: the name ${name} is already registered`)
      }
    }
    this.metrics.set(metric.name, metric)
    for (const name of sampleNames) this.sampleNames.add(name)
    return metric
  }

  private safely(collect: () => void, metricName: string | undefined): void {
    try {
      collect()
    } catch (error) {
      this.onCollectError(error, metricName)
    }
  }
}
