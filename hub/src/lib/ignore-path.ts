// One definition of how a generalised pointer writes what varies (docs/insights.md "Diff signatures").
import { INDEX_PLACEHOLDER, KEY_PLACEHOLDER } from '../../../src/insights/signature-path.ts'

/** Characters the field-path notation reads as syntax inside a key (docs/diff.md "ignored_fields"). */
const SYNTAX = /[\\.*?#]/g

/**
 * The `ignored_fields` entry that names a field of the Differences view:
 * a generalised JSON Pointer (the fields read's `path`, such as
 * `/body/orders/{key}/updated_at`) written in the gate's field-path
 * notation (`body.orders.*.updated_at`), ready to paste.
 *
 * - RFC 6901 escapes are undone (`~1` is `/`, `~0` is `~`), and what the
 *   notation reads as syntax inside a key (`.`, `*`, `?`, `#`, `\`) is
 *   escaped with a backslash (docs/diff.md);
 * - an array index (`*`) becomes `#`, an identifier-like key (`{key}`)
 *   becomes `*`: each names any one key or index, so the path covers every
 *   capture the row counted;
 * - `/status`, `/headers/<Name>` and `/body/...` become `status`,
 *   `headers.<Name>` and `body....`; header names match case-insensitively,
 *   and a pointer to one of a header's values names the header.
 *
 * Undefined when no entry fits: the whole document (`''`), a pointer that
 * is not one, a root the notation does not know, an empty key (the
 * notation has no empty segment), and a header whose name was generalised
 * (`/headers/{key}`): `headers.*` would ignore every header, far more than
 * the row counted.
 */
export function ignorePathOf(pointer: string): string | undefined {
  if (pointer === '' || pointer[0] !== '/') return undefined
  const tokens = pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
  const [root, ...rest] = tokens
  if (root === 'status') return rest.length === 0 ? 'status' : undefined
  if (root === 'headers') {
    if (rest.length === 0) return 'headers'
    // Below a header are its values (`/headers/Set-Cookie/1`): the entry names the header.
    const name = rest[0]!
    if (name === '' || name === INDEX_PLACEHOLDER || name === KEY_PLACEHOLDER) return undefined
    return `headers.${escapeKey(name)}`
  }
  if (root !== 'body') return undefined
  const segments = ['body']
  for (const token of rest) {
    if (token === '') return undefined
    segments.push(token === INDEX_PLACEHOLDER ? '#' : token === KEY_PLACEHOLDER ? '*' : escapeKey(token))
  }
  return segments.join('.')
}

function escapeKey(key: string): string {
  return key.replace(SYNTAX, '\\$&')
}
