/**
 * Whether a path segment or an object key names one thing among many (an
 * id, a token, a date) rather than a kind of thing (a word, a short
 * version). One rule for both uses (docs/insights.md "Automatic
 * templating"): `/orders/4711` and `{"orders": {"4711": ...}}` generalise
 * alike, to `/orders/{id}` and `/orders/{key}`.
 *
 * Identifier-like, on the text as decoded (a path segment is
 * percent-decoded by the caller):
 * - all digits: `42`, `0042`;
 * - three or more digits, whatever else is around them: `sku-15028`,
 *   `2024-05-01`, `ord_123abc`;
 * - a UUID: `3f2b...-...` (8-4-4-4-12 hex digits, either case);
 * - a run of 8 or more hex digits with at least one digit: `5f3a9c2e`,
 *   `deadbee1` (`deadbeef`, all letters, reads as a word);
 * - an opaque token: 16 or more base64url characters (letters, digits,
 *   `-`, `_`, then up to two `=`) with at least one letter and one digit,
 *   such as a ULID or a random base64url token.
 *
 * Everything else stays: words (`health`, `en-US`, `app.js`) and short
 * versions with one or two digits (`v2`, `v10`, `oauth2`, `1.0`).
 */
export function isIdentifierLike(text: string): boolean {
  const length = text.length
  if (length === 0) return false
  let digits = 0
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 48 && code <= 57) digits++
  }
  if (digits === length || digits >= 3) return true
  if (length === 36 && UUID.test(text)) return true
  if (digits === 0) return false
  if (length >= 8 && HEX.test(text)) return true
  return length >= 16 && TOKEN.test(text) && LETTER.test(text)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const HEX = /^[0-9a-f]+$/i
const TOKEN = /^[A-Za-z0-9_-]+={0,2}$/
const LETTER = /[A-Za-z]/
