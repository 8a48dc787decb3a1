import type { VerdictReport } from '../api/schemas/verdict-schemas.ts'

type Check = VerdictReport['checks'][number]

/** A check's value or threshold as a reader wants it: rates in percent, ratios with two decimals, counts whole. */
export function formatMeasure(name: Check['name'], n: number): string {
  switch (name) {
    case 'requests':
      return String(n)
    case 'diff_rate':
    case 'error_rate': {
      const percent = n * 100
      return percent > 0 && percent < 0.01 ? '<0.01 %' : `${percent.toFixed(2)} %`
    }
    case 'latency_ratio':
      return n.toFixed(2)
  }
}

/** How a check's value is held against its threshold, as a reader would say it. */
export function comparison(check: Check): string {
  return `${check.name === 'requests' ? '>=' : '<='} ${formatMeasure(check.name, check.threshold)}`
}

/**
 * A verdict as the plain-text table `bun run verdict` prints
 * (docs/ci.md): a headline, then one row per check, failed ones marked
 * FAIL so that a reader finds them in a log, then how many diffs were
 * left out as noise.
 */
export function verdictTable(report: VerdictReport, gateLabel: string): string {
  const headline =
    `verdict: ${report.verdict.toUpperCase()}  gate ${gateLabel}  ` +
    `${report.requests} requests from ${report.window.from} to ${report.window.to}`
  const rows = [
    ['CHECK', 'SCOPE', 'VALUE', 'THRESHOLD', 'RESULT'],
    ...report.checks.map((check) => [
      check.name,
      check.scope,
      formatMeasure(check.name, check.value),
      comparison(check),
      check.pass ? 'pass' : 'FAIL',
    ]),
  ]
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
  const lines = rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '))
  const note = [
    report.ignore_noise
      ? `noise ignored: ${report.noise_ignored} diffs touched only fields classified noise and are not in diff_rate`
      : 'noise counted: every diff is in diff_rate (--no-ignore-noise)',
    ...(report.live_failures > 0
      ? [`live failed: ${report.live_failures} captures whose live gave no answer are not in requests (nothing to compare the shadow with)`]
      : []),
    ...(report.verdict === 'inconclusive'
      ? [`too few requests to conclude: ${report.requests} in the window, min_requests is ${report.checks[0]?.threshold ?? '?'}`]
      : []),
  ]
  return [headline, '', ...lines, '', ...note].join('\n') + '\n'
}
