import type {
  FamilySnapshot,
  GaugeMerge,
  HistogramFamily,
  HistogramSeries,
  MetricsSnapshot,
  ValueSeries,
} from './metrics-snapshot.ts'

/**
 * Several processes' snapshots as one (docs/metrics.md "Several workers"):
 * per metric name and label set, counters are added, histograms added
 * bucket by bucket (with their sums and counts), gauges combined by their
 * own `merge`. Families and series keep the order they are first seen in,
 * so the result renders like one registry. A family that one process
 * declares differently from another (another type, other buckets: two
 * builds side by side) keeps the first process's declaration, and the
 * others' series of it are left out rather than added wrongly.
 */
export function mergeSnapshots(snapshots: readonly MetricsSnapshot[]): MetricsSnapshot {
  const families = new Map<string, FamilyBuilder>()
  for (const snapshot of snapshots) {
    for (const family of snapshot.families) {
      const builder = families.get(family.name)
      if (builder === undefined) families.set(family.name, new FamilyBuilder(family))
      else builder.add(family)
    }
  }
  return { families: [...families.values()].map((builder) => builder.build()) }
}

/**
 * What of a snapshot still counts once its process has gone: its counters
 * and histograms, which the merged totals must keep so that they never go
 * down. Its gauges described a process that no longer exists.
 */
export function monotonicPart(snapshot: MetricsSnapshot): MetricsSnapshot {
  return { families: snapshot.families.filter((family) => family.type !== 'gauge') }
}

class FamilyBuilder {
  private readonly first: FamilySnapshot
  private readonly values = new Map<string, number>()
  private readonly histograms = new Map<string, { counts: number[]; sum: number; count: number }>()

  constructor(family: FamilySnapshot) {
    this.first = family
    this.add(family)
  }

  add(family: FamilySnapshot): void {
    const first = this.first
    if (family.type !== first.type) return
    if (family.type === 'histogram') {
      if (!sameBuckets(family, first as HistogramFamily)) return
      for (const series of family.series) this.addHistogram(series)
      return
    }
    const merge: GaugeMerge = first.type === 'gauge' ? first.merge : 'sum'
    for (const series of family.series as readonly ValueSeries[]) {
      const before = this.values.get(series.labels)
      this.values.set(series.labels, before === undefined ? series.value : combine(merge, before, series.value))
    }
  }

  build(): FamilySnapshot {
    const { name, help } = this.first
    switch (this.first.type) {
      case 'counter':
        return { type: 'counter', name, help, series: this.valueSeries() }
      case 'gauge':
        return { type: 'gauge', name, help, merge: this.first.merge, series: this.valueSeries() }
      case 'histogram': {
        const series = [...this.histograms].map(([labels, h]) => ({ labels, ...h }))
        return { type: 'histogram', name, help, buckets: this.first.buckets, series }
      }
    }
  }

  private valueSeries(): ValueSeries[] {
    return [...this.values].map(([labels, value]) => ({ labels, value }))
  }

  private addHistogram(series: HistogramSeries): void {
    const into = this.histograms.get(series.labels)
    if (into === undefined) {
      this.histograms.set(series.labels, { counts: [...series.counts], sum: series.sum, count: series.count })
      return
    }
    for (let i = 0; i < into.counts.length; i++) into.counts[i]! += series.counts[i] ?? 0
    into.sum += series.sum
    into.count += series.count
  }
}

function combine(merge: GaugeMerge, a: number, b: number): number {
  switch (merge) {
    case 'sum':
      return a + b
    // Math.max and Math.min give NaN when either is NaN (a value a process
    // could not read): the merged value then says "unknown", as it would alone.
    case 'max':
      return Math.max(a, b)
    case 'min':
      return Math.min(a, b)
  }
}

function sameBuckets(a: HistogramFamily, b: HistogramFamily): boolean {
  return a.buckets.length === b.buckets.length && a.buckets.every((bound, i) => bound === b.buckets[i])
}
