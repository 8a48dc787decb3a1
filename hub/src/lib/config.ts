/**
 * Where the hub finds the API and its key (docs/reference/configuration.md
 * "Hub").
 *
 * 1. Runtime: `/config.js`, written by the hub server from SVC_APP_API_BASE_URL
 *    and SVC_APP_API_KEY, sets `globalThis.__SVC_HUB_CONFIG__` before the app
 *    loads (a script file, not an inline script, so the CSP holds).
 * 2. Build time: VITE_API_BASE_URL and VITE_API_KEY, inlined by Bun's bundler
 *    through `define` (see src/hub-server/build-hub.ts).
 * 3. A key typed into the key prompt, kept in sessionStorage only. It wins
 *    over a configured key, because the user types one after that key was
 *    refused.
 */

export interface RuntimeConfig {
  readonly apiBaseUrl?: string
  readonly apiKey?: string
}

declare global {
  // Set by /config.js; `var` is required for a property of globalThis.
  var __SVC_HUB_CONFIG__: RuntimeConfig | undefined
}

export const KEY_SOURCES = ['session', 'runtime', 'build', 'none'] as const
export type KeySource = (typeof KEY_SOURCES)[number]

export interface HubConfig {
  /** API base URL without a trailing slash; empty means the hub's own origin. */
  readonly apiBaseUrl: string
  readonly apiKey: string
  /** Where the key came from, so a 401 can say which setting to fix. */
  readonly keySource: KeySource
}

/** Merges the three sources; pure, so it is tested without a browser. */
export function resolveConfig(
  runtime: RuntimeConfig | undefined,
  build: RuntimeConfig,
  sessionKey: string | null,
): HubConfig {
  const base = nonEmpty(runtime?.apiBaseUrl) ?? nonEmpty(build.apiBaseUrl) ?? ''
  const apiBaseUrl = base.replace(/\/+$/, '')
  const session = nonEmpty(sessionKey ?? undefined)
  if (session) return { apiBaseUrl, apiKey: session, keySource: 'session' }
  const runtimeKey = nonEmpty(runtime?.apiKey)
  if (runtimeKey) return { apiBaseUrl, apiKey: runtimeKey, keySource: 'runtime' }
  const buildKey = nonEmpty(build.apiKey)
  if (buildKey) return { apiBaseUrl, apiKey: buildKey, keySource: 'build' }
  return { apiBaseUrl, apiKey: '', keySource: 'none' }
}

/** The build-time values; `process.env.VITE_*` are replaced by the bundler. */
export function buildTimeConfig(): RuntimeConfig {
  return { apiBaseUrl: process.env.VITE_API_BASE_URL, apiKey: process.env.VITE_API_KEY }
}

function nonEmpty(value: string | undefined): string | undefined {
  const v = value?.trim()
  return v ? v : undefined
}
