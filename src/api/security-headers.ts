/**
 * The security headers (docs/reference/api.md "Conventions"): on every API
 * response, errors and unauthenticated endpoints included. HSTS only when
 * enabled, never inferred from the request.
 */
export function securityHeaders(hstsMaxAgeSeconds: number | undefined): ReadonlyArray<[string, string]> {
  const headers: Array<[string, string]> = [
    ['X-Content-Type-Options', 'nosniff'],
    ['X-Frame-Options', 'DENY'],
    ['Referrer-Policy', 'no-referrer'],
  ]
  if (hstsMaxAgeSeconds !== undefined) {
    headers.push(['Strict-Transport-Security', `max-age=${hstsMaxAgeSeconds}; includeSubDomains`])
  }
  return Object.freeze(headers)
}
