/**
 * Parses the text of a `.env` file: `KEY=value` lines, `#` comments, an
 * optional `export ` prefix, single- or double-quoted values (double quotes
 * understand `\n`, `\t`, `\"` and `\\`). Unparseable lines are ignored, as
 * the common dotenv loaders do, so a stray line never blocks startup.
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line)
    if (!match) continue
    out[match[1]!] = unquote(match[2]!)
  }
  return out
}

function unquote(value: string): string {
  const quote = value[0]
  if (quote === '"' || quote === "'") {
    const end = value.lastIndexOf(quote)
    if (end > 0) {
      const inner = value.slice(1, end)
      return quote === "'" ? inner : inner.replace(/\\([nt"\\])/g, (_, c: string) => DOUBLE_QUOTE_ESCAPES[c]!)
    }
  }
  // An unquoted value ends at an inline comment.
  const hash = value.search(/\s#/)
  return (hash === -1 ? value : value.slice(0, hash)).trim()
}

const DOUBLE_QUOTE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\' }
