/** A label value as callers pass it; numbers (status codes, ports) are rendered with `String`. */
export type LabelValue = string | number

type Node = Map<LabelValue, unknown>

/**
 * The children of one metric, one per combination of label values.
 *
 * A trie with one `Map` level per label, keyed by the values exactly as
 * passed: a lookup allocates nothing, unlike joining the values into one
 * string key, which measured 2-3x slower on Bun and needs a separator that
 * no label value may contain. A number and its string (`200`, `'200'`) reach
 * the same child: the first miss on the number aliases it to the string's
 * entry.
 */
export class ChildCache<C> {
  private readonly root: Node = new Map()
  private readonly all = new Set<C>()
  private solo: C | undefined

  /**
   * @param metricName used in error messages only
   * @param labelNames the metric's label names, in order
   * @param create makes a child for its label values, already stringified
   */
  constructor(
    private readonly metricName: string,
    private readonly labelNames: readonly string[],
    private readonly create: (values: readonly string[]) => C,
  ) {}

  /** The child for these label values, made on first use. */
  get(values: readonly LabelValue[]): C {
    const n = this.labelNames.length
    if (values.length !== n) throw this.arityError(values.length)
    if (n === 0) return this.solo ?? this.makeSolo()
    let node = this.root
    const last = n - 1
    for (let i = 0; i < last; i++) {
      const value = values[i]
      node = (node.get(value) as Node | undefined) ?? this.branch(node, value)
    }
    return (node.get(values[last]) as C | undefined) ?? this.leaf(node, values)
  }

  /** Forgets the child for these label values; `false` when there was none. */
  delete(values: readonly LabelValue[]): boolean {
    if (values.length !== this.labelNames.length) throw this.arityError(values.length)
    if (values.length === 0) return this.solo !== undefined && this.all.delete(this.takeSolo())
    let node: Node | undefined = this.root
    for (let i = 0; i < values.length - 1 && node; i++) {
      node = (node.get(values[i]) ?? node.get(String(values[i]))) as Node | undefined
    }
    const lastValue = values[values.length - 1]
    const child = (node?.get(lastValue) ?? node?.get(String(lastValue))) as C | undefined
    if (!node || child === undefined) return false
    // A child may sit under both a number and its string; drop every alias.
    for (const [key, value] of node) if (value === child) node.delete(key)
    return this.all.delete(child)
  }

  /** Forgets every child. */
  clear(): void {
    this.root.clear()
    this.all.clear()
    this.solo = undefined
  }

  /** Children in creation order. */
  values(): IterableIterator<C> {
    return this.all.values()
  }

  private makeSolo(): C {
    const child = this.create([])
    this.solo = child
    this.all.add(child)
    return child
  }

  private takeSolo(): C {
    const child = this.solo as C
    this.solo = undefined
    return child
  }

  private branch(node: Node, value: LabelValue): Node {
    return this.alias(node, value, () => new Map()) as Node
  }

  private leaf(node: Node, values: readonly LabelValue[]): C {
    return this.alias(node, values[values.length - 1], () => {
      const child = this.create(values.map(String))
      this.all.add(child)
      return child
    }) as C
  }

  /** Finds or makes the entry under the value's string form, and aliases a number to it. */
  private alias(node: Node, value: LabelValue, make: () => unknown): unknown {
    const key = String(value)
    let entry = node.get(key)
    if (entry === undefined) {
      entry = make()
      node.set(key, entry)
    }
    if (typeof value !== 'string') node.set(value, entry)
    return entry
  }

  private arityError(got: number): TypeError {
    const names = this.labelNames.join(', ')
    return new TypeError(
      `metric ${this.metricName} takes ${this.labelNames.length} label value(s) (${names}), got ${got}`,
    )
  }
}
