/**
 * JSON Pointer (RFC 6901). "A JSON Pointer is a Unicode string containing a
 * sequence of zero or more reference tokens, each prefixed by a '/'
 * character." "'~1' [is transformed] to '/', and then '~0' to '~'."
 */

/** Reference tokens of a pointer; `undefined` when it is not a pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) return undefined
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
}

export function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

export function formatPointer(tokens: readonly string[]): string {
  return tokens.map((t) => '/' + escapeToken(t)).join('')
}

export function childPointer(parent: string, token: string | number): string {
  return `${parent}/${escapeToken(String(token))}`
}

/** The value a pointer designates, or `undefined` when there is none. */
export function getAt(doc: unknown, pointer: string): { found: boolean; value?: unknown } {
  const tokens = parsePointer(pointer)
  if (!tokens) return { found: false }
  let cur: unknown = doc
  for (const t of tokens) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(t) || Number(t) >= cur.length) return { found: false }
      cur = cur[Number(t)]
    } else if (typeof cur === 'object' && cur !== null && Object.hasOwn(cur, t)) {
      cur = (cur as Record<string, unknown>)[t]
    } else {
      return { found: false }
    }
  }
  return { found: true, value: cur }
}

/** True when `pointer` equals `ancestor` or lies below it. */
export function isWithin(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(ancestor + '/')
}

/**
 * Every proper ancestor of each pointer (the root `''` included), so a tree
 * view can open exactly the branches that lead to a highlight.
 */
export function ancestorsOf(pointers: Iterable<string>): Set<string> {
  const out = new Set<string>()
  for (const p of pointers) {
    let cut = p.lastIndexOf('/')
    while (cut >= 0) {
      const parent = p.slice(0, cut)
      if (out.has(parent)) break
      out.add(parent)
      cut = parent.lastIndexOf('/')
    }
  }
  return out
}
