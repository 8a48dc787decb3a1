import type { VerdictReport } from '../api/schemas/verdict-schemas.ts'
import { comparison, formatMeasure } from './verdict-table.ts'

/**
 * A verdict as a JUnit XML report (the format CI systems read: one test
 * suite, one test case per check), so that a pipeline shows each check
 * as passed or failed. A failed check is a `<failure>`; when the verdict
 * is inconclusive, the `requests` check's failure has type `inconclusive`.
 */
export function junitReport(report: VerdictReport, gateLabel: string, timestamp: Date): string {
  const failures = report.checks.filter((check) => !check.pass).length
  const suite = `svc-shadow verdict: gate ${gateLabel}`
  const properties = [
    ['verdict', report.verdict],
    ['requests', String(report.requests)],
    ['live_failures', String(report.live_failures)],
    ['ignore_noise', String(report.ignore_noise)],
    ['noise_ignored', String(report.noise_ignored)],
    ['window.from', report.window.from],
    ['window.to', report.window.to],
  ]
  const cases = report.checks.map((check) => {
    const name = `${check.name} (${check.scope})`
    const open = `    <testcase classname="svc-shadow.verdict" name="${attribute(name)}" time="0"`
    if (check.pass) return `${open}/>`
    const type = check.name === 'requests' && report.verdict === 'inconclusive' ? 'inconclusive' : 'threshold'
    const message = `${check.name} of ${check.scope} is ${formatMeasure(check.name, check.value)}, required ${comparison(check)}`
    return [
      `${open}>`,
      `      <failure type="${type}" message="${attribute(message)}">${text(message)}</failure>`,
      '    </testcase>',
    ].join('\n')
  })
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="svc-shadow verdict" tests="${report.checks.length}" failures="${failures}" errors="0" time="0">`,
    `  <testsuite name="${attribute(suite)}" tests="${report.checks.length}" failures="${failures}" errors="0" skipped="0" time="0" timestamp="${timestamp.toISOString().replace(/\.\d+Z$/, '')}">`,
    '    <properties>',
    ...properties.map(([name, value]) => `      <property name="${attribute(name!)}" value="${attribute(value!)}"/>`),
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n')
}

/**
 * Characters XML 1.0 cannot hold at all (§2.2: most C0 controls, lone
 * surrogates, U+FFFE/U+FFFF): a template is whatever paths the service
 * saw, and one such character would make the whole report unreadable.
 */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

function text(value: string): string {
  return value.replace(NOT_XML, '\uFFFD').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

/** Attribute values also escape quotes and the whitespace an XML parser would normalise away (§3.3.3). */
function attribute(value: string): string {
  return text(value).replace(/"/g, '&quot;').replace(/\t/g, '&#9;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;')
}
