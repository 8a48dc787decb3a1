import { ChildCache, type LabelValue } from './child-cache.ts'
import { escapeHelp, formatLabelPairs, LABEL_NAME, METRIC_NAME } from './exposition.ts'
import type { FamilySnapshot } from './metrics-snapshot.ts'

export type { LabelValue }

/** Label names as declared at creation; declare them `as const` (or inline) to type `labels()`. */
export type LabelNames = readonly string[]

/** One value per declared label, in declaration order. */
export type LabelValues<L extends LabelNames> = { readonly [K in keyof L]: LabelValue }

/** The object form of label values: one property per declared label. */
export type LabelSet<L extends LabelNames> = { readonly [K in L[number]]: LabelValue }

export const METRIC_TYPES = ['counter', 'gauge', 'histogram'] as const
export type MetricType = (typeof METRIC_TYPES)[number]

/** What every metric is created with. */
export interface MetricOptions<L extends LabelNames> {
  /** Metric name, `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
  readonly name: string
  /** One line of help text shown on the `# HELP` line. */
  readonly help: string
  /**
   * Label names, fixed at creation.
   * @default []
   */
  readonly labelNames?: L
}

/**
 * What the counter, gauge and histogram share: a name, help text, declared
 * label names and the cache of children bound to label values. Each child is
 * created once and then updated with plain number arithmetic, so callers on
 * the hot path should keep the child (or call `labels()`, one trie walk).
 */
export abstract class Metric<L extends LabelNames, C> {
  abstract readonly type: MetricType
  readonly name: string
  readonly help: string
  readonly labelNames: L
  protected readonly children: ChildCache<C>

  constructor(options: MetricOptions<L>, reservedLabels: readonly string[] = []) {
    const labelNames = (options.labelNames ?? []) as unknown as L
    validateNames(options.name, labelNames, reservedLabels)
    this.name = options.name
    this.help = options.help
    this.labelNames = Object.freeze([...labelNames]) as unknown as L
    this.children = new ChildCache(options.name, this.labelNames, (values) =>
      this.createChild(formatLabelPairs(this.labelNames, values)),
    )
  }

  /**
   * The child bound to these label values, created on first use and cached.
   * Values are positional, in declaration order, or an object by label name.
   */
  labels(set: LabelSet<L>): C
  labels(...values: LabelValues<L>): C
  labels(...args: [LabelSet<L>] | LabelValues<L>): C {
    const first: unknown = args[0]
    if (typeof first === 'object' && first !== null) {
      const set = first as Record<string, LabelValue>
      return this.children.get(this.labelNames.map((name) => set[name] ?? ''))
    }
    return this.children.get(args as readonly LabelValue[])
  }

  /** Drops the series for these label values (a deleted gate, say); `false` when absent. */
  remove(...values: LabelValues<L>): boolean {
    return this.children.delete(values as readonly LabelValue[])
  }

  /** Drops every series. */
  reset(): void {
    this.children.clear()
  }

  /**
   * Appends this metric's `# HELP`, `# TYPE` and sample lines.
   * @internal called by `Registry.render()`
   */
  renderTo(out: string[]): void {
    out.push(`# HELP ${this.name} ${escapeHelp(this.help)}`, `# TYPE ${this.name} ${this.type}`)
    // An unlabelled metric is exported (as 0) before its first update, as Prometheus advises.
    if (this.labelNames.length === 0) this.children.get([])
    for (const child of this.children.values()) this.renderChild(child, out)
  }

  /**
   * This metric's values as plain data, for merging with other processes'.
   * @internal called by `Registry.snapshot()`
   */
  snapshot(): FamilySnapshot {
    // As renderTo: an unlabelled metric is there (as 0) before its first update.
    if (this.labelNames.length === 0) this.children.get([])
    return this.snapshotOf([...this.children.values()])
  }

  /**
   * Runs the metric's scrape-time callback, if any.
   * @internal called by `Registry.render()`
   */
  collect(): void {}

  /** The child without labels; throws if the metric has labels (a programming error). */
  protected get solo(): C {
    return this.children.get([])
  }

  /** Makes a child; `labelPairs` is its rendered `name="value",...` (empty without labels). */
  protected abstract createChild(labelPairs: string): C

  protected abstract renderChild(child: C, out: string[]): void

  /** The family of these children, copied (the snapshot must not change with the metric). */
  protected abstract snapshotOf(children: readonly C[]): FamilySnapshot
}

function validateNames(name: string, labelNames: LabelNames, reserved: readonly string[]): void {
  if (!METRIC_NAME.test(name)) throw new TypeError(`invalid metric name ${JSON.stringify(name)}`)
  const seen = new Set<string>()
  for (const label of labelNames) {
    if (!LABEL_NAME.test(label) || label.startsWith('__') || reserved.includes(label)) {
      throw new TypeError(`metric ${name}: invalid label name ${JSON.stringify(label)}`)
    }
    if (seen.has(label)) throw new TypeError(`metric ${name}: duplicate label ${label}`)
    seen.add(label)
  }
}

/** `{pairs}` or nothing, for a sample line. */
export function braces(labelPairs: string): string {
  return labelPairs === '' ? '' : `{${labelPairs}}`
}
