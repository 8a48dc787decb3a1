/**
 * The standard HTTP methods: RFC 9110's and PATCH (RFC 5789), the ones
 * OpenTelemetry's HTTP conventions know. The metrics' method label
 * (`src/metrics/label-values.ts`) and the raw server's request heads
 * (`src/proxy/server/request-head.ts`) take them from here. Pure.
 */
export const HTTP_METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

/**
 * The method as the constant above when it is one, else as given: a
 * method sliced from a head would become a string of its own at its first
 * lookup by value (a Set's, a Map's), once per request, where comparing
 * makes none (docs/proxy.md "CPU per request").
 */
export function standardMethod(method: string): string {
  for (const standard of HTTP_METHODS) if (method === standard) return standard
  return method
}
