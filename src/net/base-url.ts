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

/** The rule of isBaseUrl, for error messages ("must be ..."). */
export const BASE_URL_RULE = 'an http:// or https:// URL without a query or fragment'
