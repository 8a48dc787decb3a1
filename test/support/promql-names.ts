/**
 * The metric and label names a PromQL expression uses, read by a small
 * scanner rather than a full parser: enough for the expressions of
 * deploy/prometheus/alerts.yml and deploy/grafana/*.json, which a test
 * checks against real scrapes (test/integration/deploy/metric-names.test.ts).
 * Grafana's variables (`$job`, `${datasource}`, `$__rate_interval`) are
 * skipped like literals.
 */

export interface PromqlSelector {
  /** The metric name: before the braces, or a `__name__="..."` matcher. */
  readonly name: string
  /** Label names its matchers use, `__name__` excepted. */
  readonly labels: readonly string[]
}

export interface PromqlNames {
  readonly selectors: readonly PromqlSelector[]
  /** Label names of `by`, `without`, `on`, `ignoring`, `group_left`, `group_right` lists. */
  readonly groupingLabels: readonly string[]
}

/** Aggregation operators: names that are not metrics even when `by (...)` follows instead of `(`. */
const AGGREGATORS = new Set([
  'sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values',
  'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio',
])
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan'])
const LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'])

type Token =
  | { readonly kind: 'ident'; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'number' | 'variable' }
  | { readonly kind: 'punct'; readonly text: string }

const TOKEN = new RegExp(
  [
    String.raw`(?<space>\s+|#[^\n]*)`,
    String.raw`(?<variable>\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*)`,
    String.raw`(?<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + '`[^`]*`)',
    String.raw`(?<number>(?:0x[0-9a-fA-F]+|\d*\.?\d+(?:[eE][+-]?\d+)?)[a-zA-Z0-9]*)`,
    String.raw`(?<ident>[A-Za-z_:][A-Za-z0-9_:]*)`,
    String.raw`(?<punct>=~|!~|!=|==|<=|>=|[-+*/%^(){}\[\],=<>@:])`,
  ].join('|'),
  'y',
)

export function tokenize(expr: string): Token[] {
  const tokens: Token[] = []
  TOKEN.lastIndex = 0
  while (TOKEN.lastIndex < expr.length) {
    const at = TOKEN.lastIndex
    const match = TOKEN.exec(expr)
    if (!match?.groups) throw new Error(`cannot read PromQL at ${at}: ${expr.slice(at, at + 20)}`)
    const g = match.groups
    if (g.space !== undefined) continue
    if (g.ident !== undefined) tokens.push({ kind: 'ident', text: g.ident })
    else if (g.punct !== undefined) tokens.push({ kind: 'punct', text: g.punct })
    else if (g.string !== undefined) tokens.push({ kind: 'string', value: g.string.slice(1, -1) })
    else tokens.push({ kind: g.variable !== undefined ? 'variable' : 'number' })
  }
  return tokens
}

/** The metric names, their matchers' labels and the grouping labels of one expression. */
export function promqlNames(expr: string): PromqlNames {
  const tokens = tokenize(expr)
  const selectors: PromqlSelector[] = []
  const groupingLabels: string[] = []
  const punct = (i: number, text: string) => {
    const t = tokens[i]
    return t?.kind === 'punct' && t.text === text
  }
  /** Index after the bracket that closes the one at `open`. */
  const skipTo = (open: number, close: string) => {
    let i = open + 1
    while (i < tokens.length && !punct(i, close)) i++
    return i + 1
  }
  /** Label names of the `{...}` at `open`, and a `__name__` matcher's value if any. */
  const matchers = (open: number) => {
    const labels: string[] = []
    let name: string | undefined
    const end = skipTo(open, '}')
    for (let i = open + 1; i < end - 1; i++) {
      const t = tokens[i]!
      if (t.kind !== 'ident' || !['=', '!=', '=~', '!~'].some((op) => punct(i + 1, op))) continue
      const value = tokens[i + 2]
      if (t.text !== '__name__') labels.push(t.text)
      else if (value?.kind === 'string') name = value.value
    }
    return { labels, name, end }
  }

  let i = 0
  while (i < tokens.length) {
    const t = tokens[i]!
    if (punct(i, '[')) {
      i = skipTo(i, ']')
      continue
    }
    if (punct(i, '{')) {
      const bare = matchers(i)
      if (bare.name !== undefined) selectors.push({ name: bare.name, labels: bare.labels })
      i = bare.end
      continue
    }
    if (t.kind !== 'ident') {
      i++
      continue
    }
    if (LIST_KEYWORDS.has(t.text)) {
      if (punct(i + 1, '(')) {
        const end = skipTo(i + 1, ')')
        for (let j = i + 2; j < end - 1; j++) {
          const label = tokens[j]!
          if (label.kind === 'ident') groupingLabels.push(label.text)
        }
        i = end
      } else i++
      continue
    }
    if (KEYWORDS.has(t.text) || AGGREGATORS.has(t.text) || punct(i + 1, '(')) {
      i++
      continue
    }
    if (punct(i + 1, '{')) {
      const { labels, end } = matchers(i + 1)
      selectors.push({ name: t.text, labels })
      i = end
    } else {
      selectors.push({ name: t.text, labels: [] })
      i++
    }
  }
  return { selectors, groupingLabels }
}

/**
 * The PromQL of a Grafana `label_values(metric_or_selector, label)` query
 * (the first argument), or the query itself when it is plain PromQL.
 */
export function grafanaQueryExpression(query: string): string {
  const call = /^\s*label_values\((.*)\)\s*$/s.exec(query)
  if (!call) return query
  const args = call[1]!
  const comma = args.lastIndexOf(',')
  return comma < 0 ? '' : args.slice(0, comma)
}
