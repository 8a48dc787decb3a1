// The API's suggestions are written by the same function (docs/insights.md "Suggestions"): one notation, one definition.
import { fieldPathOf } from '../../../src/insights/field-path-of.ts'
import { INDEX_PLACEHOLDER, KEY_PLACEHOLDER } from '../../../src/insights/signature-path.ts'

/**
 * The `ignored_fields` entry that names a field of the Differences view:
 * a generalised JSON Pointer (the fields read's `path`, such as
 * `/body/orders/{key}/updated_at`) written in the gate's field-path
 * notation (`body.orders.*.updated_at`), ready to paste, by the API's own
 * `fieldPathOf` (src/insights/field-path-of.ts):
 *
 * - RFC 6901 escapes are undone (`~1` is `/`, `~0` is `~`), and what the
 *   notation reads as syntax inside a key (`.`, `*`, `?`, `#`, `\`) is
 *   escaped with a backslash (docs/diff.md);
 * - an array index (`*`) becomes `#`, an identifier-like key (`{key}`)
 *   becomes `*`: each names any one key or index, so the path covers every
 *   capture the row counted;
 * - `/status`, `/headers/<Name>` and `/body/...` become `status`,
 *   `headers.<Name>` and `body....`; header names match case-insensitively.
 *
 * On top of it, for a person about to click "Ignore": a pointer to one of
 * a header's values (`/headers/Set-Cookie/1`) names the header, and no
 * entry is offered for the whole document, for anything below `status`,
 * for a key the notation cannot write (empty), or for a header whose name
 * was generalised (`/headers/{key}`): `headers.*` would ignore every
 * header, far more than the row counted.
 */
export function ignorePathOf(pointer: string): string | undefined {
  const raw = pointer.split('/')
  if (raw[0] !== '' || raw.length < 2) return undefined
  if (raw[1] === 'status') return raw.length === 2 ? 'status' : undefined
  if (raw[1] === 'headers' && raw.length > 2) {
    // Neither placeholder holds a `~`: the raw token is the decoded one.
    const name = raw[2]!
    if (name === INDEX_PLACEHOLDER || name === KEY_PLACEHOLDER) return undefined
    return fieldPathOf(`/headers/${name}`)
  }
  return fieldPathOf(pointer)
}
