/**
 * A base URL (live, shadow, the API): request paths are appended to it, so
 * it is an absolute http(s) URL with a host and without a query or a
 * fragment, which would otherwise land in the middle of every path
 * (`http://live/?v=2` + `/api/x` is `http://live/?v=2/api/x`).
 */
export function isBaseUrl(text: string): boolean {
  try {
    const url = new URL(text)
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !/[?#]/.test(url.href)
  } catch {
    return false
  }
}

/**
 * The URL with the password of its userinfo, if any, as `***`: for log
 * records and error lines, which outlive the process and reach people who
 * need the upstream's address but not its credentials.
 */
export function withoutPassword(url: string): string {
  // Up to the authority's last `@`: a raw password may hold one (`u:p@ss@host`).
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^/?#]*@/i, '$1***@')
}

/**
 * Text meant as a URL, with what stands between the scheme (and a user
 * name before a `:`) and its last `@` as `***`: for a value that failed its
 * rule, which may not parse as a URL at all (a space before the scheme,
 * `postgres//u:p@h`, `u:p@h:5432`, a password holding `/` or `@`) and whose
 * credentials withoutPassword would then miss. Fails closed: a token
 * without a user name is hidden, and an `@` in a path hides the host too.
 */
export function withoutUserinfo(text: string): string {
  const at = text.lastIndexOf('@')
  if (at === -1) return text
  const scheme = /^\s*[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? ''
  const user = scheme === '' ? undefined : /^[^:/?#@]+:/.exec(text.slice(scheme.length, at))?.[0]
  return `${scheme}${user ?? ''}***${text.slice(at)}`
}

/** The rule of isBaseUrl, for error messages ("must be ..."). */
export const BASE_URL_RULE = 'an http:// or https:// URL without a query or fragment'
