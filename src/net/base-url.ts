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
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@')
}

/** The rule of isBaseUrl, for error messages ("must be ..."). */
export const BASE_URL_RULE = 'an http:// or https:// URL without a query or fragment'
