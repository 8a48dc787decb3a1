/**
 * `/config.js`: the runtime configuration the page reads (docs/hub.md
 * "Configuration: which key to use when": the server writes it at startup, as
 * the container's entrypoint does). A script file rather than an inline script,
 * so the CSP stays self-only. JSON is valid JavaScript (ES2019 allows
 * U+2028/U+2029 in strings), so the values cannot break out of the expression.
 */
export function runtimeConfigScript(config: { readonly apiBaseUrl: string; readonly apiKey: string }): string {
  const value = JSON.stringify({ apiBaseUrl: config.apiBaseUrl, apiKey: config.apiKey })
  return `globalThis.__SVC_HUB_CONFIG__ = Object.freeze(${value});\n`
}

/**
 * Whether `/config.js`, which may carry the configured key, is served to
 * this request. Browsers say where a request comes from in
 * `Sec-Fetch-Site`: `same-origin` for the hub's own page, `none` for an
 * address the user typed. A page of another site (`cross-site`) or of
 * another port or subdomain of the same site (`same-site`: any other
 * service on the host) is refused. Without the header the client is not
 * a browser that sends it (curl, an orchestrator, an old browser): served,
 * as the key is to anyone who can load the page (docs/hub.md).
 */
export function mayReadRuntimeConfig(headers: Headers): boolean {
  const site = headers.get('sec-fetch-site')
  return site === null || site === 'same-origin' || site === 'none'
}
