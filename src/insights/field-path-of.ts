import { parsePointer } from '../diff/pointer.ts'
import { INDEX_PLACEHOLDER, KEY_PLACEHOLDER } from './signature-path.ts'

/**
 * A generalised signature path (signature-path.ts) in the field-path
 * notation of `ignored_fields` (docs/diff.md), ready to paste into a
 * gate's diff_config. An index, written `*` in the signature path, becomes
 * `#`: the signature path of `/body/items/3/updated_at` reads
 * `body.items.#.updated_at`. An identifier-like key, written `{key}`,
 * becomes `*`: `/body/stock/{key}/reserved` reads `body.stock.*.reserved`.
 * Both wildcards match any one key or index. Literal keys are escaped as
 * the notation wants (`.`, `*`, `?` and `\` after a backslash, a key `#`
 * as `\#`), so the path names exactly what the signature path does.
 * Undefined for a text that is not a pointer into the compared document,
 * or that holds an empty key (the notation has no way to write one).
 */
export function fieldPathOf(signaturePath: string): string | undefined {
  let tokens: string[]
  try {
    tokens = parsePointer(signaturePath)
  } catch {
    return undefined
  }
  const [root] = tokens
  if (root !== 'status' && root !== 'headers' && root !== 'body') return undefined
  if (tokens.some((token) => token === '')) return undefined
  return tokens.map((token, i) => (i === 0 ? token : fieldSegment(token))).join('.')
}

function fieldSegment(token: string): string {
  if (token === INDEX_PLACEHOLDER) return '#'
  if (token === KEY_PLACEHOLDER) return '*'
  const escaped = token.replace(/[\\.*?]/g, '\\$&')
  // A segment `#` alone is the any-element wildcard unless escaped.
  return escaped === '#' ? '\\#' : escaped
}
