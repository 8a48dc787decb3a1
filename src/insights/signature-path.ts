import { escapePointerSegment, parsePointer } from '../diff/pointer.ts'
import { isIdentifierLike } from './identifier-like.ts'

/** What an array index becomes in a signature path. */
export const INDEX_PLACEHOLDER = '*'
/** What an identifier-like object key becomes in a signature path. */
export const KEY_PLACEHOLDER = '{key}'

/**
 * The JSON Pointer of a patch operation with what varies from one capture
 * to the next taken out (docs/insights.md "Signatures"): an array index
 * becomes `*` and an identifier-like key `{key}`: `/body/items/3/price`
 * and `/body/items/12/price` read alike (the index written `*`), and
 * `/body/stock/sku-15028` reads `/body/stock/{key}`.
 *
 * A pointer does not say whether a token is an index or a key, so every
 * token of digits only (`0`, `17`, `007`) and the append token `-` (RFC
 * 6902 section 4.1) count as an index: an object keyed by numbers reads
 * `*` throughout, whatever its keys look like. Tokens are unescaped (`~1`
 * is `/`, `~0` is `~`) before they are judged and escaped again after, so
 * `/a~1b` stays one token. A text that is not a pointer is returned as it
 * is.
 */
export function generalisedPath(pointer: string): string {
  let tokens: string[]
  try {
    tokens = parsePointer(pointer)
  } catch {
    return pointer
  }
  let out = ''
  for (const token of tokens) out += '/' + generalisedToken(token)
  return out
}

function generalisedToken(token: string): string {
  if (token === '-' || DIGITS.test(token)) return INDEX_PLACEHOLDER
  if (isIdentifierLike(token)) return KEY_PLACEHOLDER
  return escapePointerSegment(token)
}

const DIGITS = /^[0-9]+$/
