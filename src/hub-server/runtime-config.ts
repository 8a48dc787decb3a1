/**
 * `/config.js`: the runtime configuration the page reads (SPEC.md "Hub":
 * "The container entrypoint injects it into the page's runtime config").
 * A script file rather than an inline script, so the CSP stays self-only.
 * JSON is valid JavaScript (ES2019 allows U+2028/U+2029 in strings), so the
 * values cannot break out of the expression.
 */
export function runtimeConfigScript(config: { readonly apiBaseUrl: string; readonly apiKey: string }): string {
  const value = JSON.stringify({ apiBaseUrl: config.apiBaseUrl, apiKey: config.apiKey })
  return `globalThis.__SVC_HUB_CONFIG__ = Object.freeze(${value});\n`
}
