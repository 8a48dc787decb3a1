import parsePrometheusTextFormat, {
  type PrometheusFamily,
  type PrometheusSample,
} from 'parse-prometheus-text-format'

/** Test helpers around a real exposition-format parser. */

/** Parses the whole text; the parser throws on a malformed line. */
export function parseExposition(text: string): PrometheusFamily[] {
  return parsePrometheusTextFormat(text)
}

/** The family with this name, or a failure naming the families there are. */
export function familyOf(text: string, name: string): PrometheusFamily {
  const families = parseExposition(text)
  const family = families.find((f) => f.name === name)
  if (!family) throw new Error(`no family ${name} in [${families.map((f) => f.name).join(', ')}]`)
  return family
}

/** The sample of a counter or gauge family whose labels equal `labels` exactly. */
export function sampleOf(
  family: PrometheusFamily,
  labels: Record<string, string> = {},
): PrometheusSample | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort())
  return family.metrics.find(
    (m) => JSON.stringify(Object.entries(m.labels ?? {}).sort()) === wanted,
  )
}

/**
 * One series of a histogram family, parsed: `{ buckets, sum, count }`.
 *
 * The parser folds every labelled series of a histogram into one object
 * (the last series' buckets win, labelled `_sum`/`_count` are dropped). So
 * this keeps the family's lines whose labels include `labels` (they must
 * pick exactly one series), strips every label but `le`, and parses that:
 * a plain histogram, which the parser reads fully.
 */
export function histogramSeries(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): PrometheusSample {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  const sampleNames = [`${name}_bucket`, `${name}_sum`, `${name}_count`]
  const lines = text.split('\n').filter((line) => {
    if (line.startsWith(`# HELP ${name} `) || line.startsWith(`# TYPE ${name} `)) return true
    const sampleName = line.split(/[{ ]/, 1)[0]
    return sampleNames.includes(sampleName) && pairs.every((pair) => line.includes(pair))
  })
  const countLines = lines.filter((line) => line.startsWith(`${name}_count`))
  if (countLines.length !== 1) {
    throw new Error(`${countLines.length} series of ${name} match ${JSON.stringify(labels)}`)
  }
  const stripped = lines.map((line) =>
    line.startsWith('#')
      ? line
      : line.replace(/\{.*\}/, (set) => {
          const le = /le="([^"]*)"/.exec(set)
          return le ? `{le="${le[1]}"}` : ''
        }),
  )
  const family = parseExposition(`${stripped.join('\n')}\n`).find((f) => f.name === name)
  if (family?.type !== 'HISTOGRAM' || family.metrics.length !== 1) {
    throw new Error(`could not parse the series of ${name} matching ${JSON.stringify(labels)}`)
  }
  return family.metrics[0]
}

/**
 * Sums the samples named `name` (a counter's, a gauge's, or a histogram's
 * `_count` or `_sum`) whose labels include `labels`, values compared
 * exactly. The whole text must first pass the real parser; the sum is
 * read from the sample lines because the parser folds a histogram's
 * labelled `_count` and `_sum` away (see histogramSeries).
 */
export function sumSamples(text: string, name: string, labels: Record<string, string> = {}): number {
  parseExposition(text)
  const wanted = Object.entries(labels)
  let sum = 0
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const sample = SAMPLE_LINE.exec(line)
    if (sample === null) throw new Error(`not a sample line: ${line}`)
    if (sample[1] !== name) continue
    const present = new Map<string, string>()
    for (const [, key, value] of (sample[2] ?? '').matchAll(LABEL_PAIR)) present.set(key!, unescapeLabel(value!))
    if (wanted.every(([key, value]) => present.get(key) === value)) sum += Number(sample[3])
  }
  return sum
}

/** `name{labels} value [timestamp]` of the text exposition format. */
const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/
const LABEL_PAIR = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

function unescapeLabel(value: string): string {
  return value.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c))
}
