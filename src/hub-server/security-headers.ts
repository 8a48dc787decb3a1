/**
 * The hub's response headers (docs/hub.md "Serving"): X-Content-Type-Options
 * nosniff, X-Frame-Options DENY, Referrer-Policy no-referrer, a
 * Content-Security-Policy (self-only defaults; connect-src widened with the
 * configured API base address; frame-ancestors 'none'),
 * Strict-Transport-Security with max-age 31536000 and includeSubDomains, and
 * Cross-Origin-Resource-Policy same-origin: a browser then refuses every hub
 * response to another site's page, `<script src=…/config.js>` with the
 * configured key included.
 */

/** Origin of the API base URL, or undefined when the API shares the hub's origin. */
export function apiOrigin(apiBaseUrl: string): string | undefined {
  if (apiBaseUrl.trim() === '') return undefined
  let url: URL
  try {
    url = new URL(apiBaseUrl)
  } catch {
    throw new Error(`hub API base URL ${JSON.stringify(apiBaseUrl)} must be an absolute http(s) URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`hub API base URL ${JSON.stringify(apiBaseUrl)} must be an absolute http(s) URL`)
  }
  return url.origin
}

/**
 * Self-only CSP. Lit's styles are constructable stylesheets
 * (adoptedStyleSheets) and the hub sets dynamic styles through the CSSOM,
 * so `style-src 'self'` needs no 'unsafe-inline'; the runtime config is a
 * script file (/config.js), so `script-src 'self'` needs no hash or nonce.
 */
export function contentSecurityPolicy(apiBaseUrl: string): string {
  const api = apiOrigin(apiBaseUrl)
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "font-src 'self'",
    `connect-src 'self'${api ? ` ${api}` : ''}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

/** The six headers, computed once per server. */
export function securityHeaders(apiBaseUrl: string): Readonly<Record<string, string>> {
  return Object.freeze({
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Content-Security-Policy': contentSecurityPolicy(apiBaseUrl),
    'Strict-Transport-Security': 'max-age=31536000; includeSubDomains',
    'Cross-Origin-Resource-Policy': 'same-origin',
  })
}
