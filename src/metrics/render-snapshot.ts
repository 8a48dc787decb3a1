import { escapeHelp, formatSampleValue } from './exposition.ts'
import { braces } from './metric.ts'
import type { FamilySnapshot, MetricsSnapshot } from './metrics-snapshot.ts'

/**
 * A snapshot in Prometheus text format 0.0.4, line for line what
 * `Registry.render()` writes for the same values: the merged exposition of
 * several workers reads like one process's.
 */
export function renderSnapshot(snapshot: MetricsSnapshot): string {
  const out: string[] = []
  for (const family of snapshot.families) renderFamily(family, out)
  out.push('')
  return out.join('\n')
}

function renderFamily(family: FamilySnapshot, out: string[]): void {
  const { name } = family
  out.push(`# HELP ${name} ${escapeHelp(family.help)}`, `# TYPE ${name} ${family.type}`)
  if (family.type !== 'histogram') {
    for (const series of family.series) out.push(`${name}${braces(series.labels)} ${formatSampleValue(series.value)}`)
    return
  }
  const le = [...family.buckets.map(formatSampleValue), '+Inf']
  for (const series of family.series) {
    const pairs = series.labels
    const prefix = `${name}_bucket{${pairs}${pairs === '' ? '' : ','}le="`
    let cumulative = 0
    for (let i = 0; i < le.length; i++) {
      cumulative += series.counts[i] ?? 0
      out.push(`${prefix}${le[i]}"} ${cumulative}`)
    }
    out.push(`${name}_sum${braces(pairs)} ${formatSampleValue(series.sum)}`, `${name}_count${braces(pairs)} ${series.count}`)
  }
}
