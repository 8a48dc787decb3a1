/**
 * RFC 6901 JSON Pointers. Section 3: `~` is written `~0` and `/` is written
 * `~1` inside a reference token; section 4: decoding turns `~1` into `/`
 * first and `~0` into `~` after, so `~01` decodes to `~1`.
 */

/** Escapes one reference token (RFC 6901 section 3). */
export function escapePointerSegment(key: string): string {
  // Most keys need nothing; avoid two regex passes on the hot path.
  if (key.indexOf('~') === -1 && key.indexOf('/') === -1) return key
  return key.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Builds a pointer from reference tokens: `['body', 'a/b', 0]` gives `/body/a~1b/0`. */
export function formatPointer(keys: readonly (string | number)[], length = keys.length): string {
  let out = ''
  for (let i = 0; i < length; i++) {
    const key = keys[i]!
    out += '/' + (typeof key === 'number' ? String(key) : escapePointerSegment(key))
  }
  return out
}

/** Splits a pointer into unescaped reference tokens (RFC 6901 section 4). */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return []
  if (pointer[0] !== '/')
    throw new SyntaxError(`a JSON Pointer starts with "/": ${JSON.stringify(pointer)}`)
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
}
