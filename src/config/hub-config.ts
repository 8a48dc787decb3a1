import { type } from 'arktype'
import { commonFields, resolveLogging, type LoggingConfig } from './common-config.ts'
import { ConfigError } from './config-error.ts'
import type { AllowedHosts } from '../net/allowed-hosts.ts'
import { allowedHostsField, apiKeyField, httpUrlField, portField } from './env-fields.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment, variableNames } from './validate-env.ts'

/** docs/reference/configuration.md "Hub", the static server's port included. */
const hubFields = {
  'SVC_APP_API_BASE_URL?': httpUrlField,
  // The API refuses shorter keys, so every page would get a 401.
  'SVC_APP_API_KEY?': apiKeyField,
  'VITE_API_BASE_URL?': httpUrlField,
  'VITE_API_KEY?': apiKeyField,
  SVC_APP_PORT: portField.default('8070'),
  'SVC_APP_ALLOWED_HOSTS?': allowedHostsField,
  ...commonFields,
} as const

export const hubConfigSchema = type(hubFields)
const ORDER = variableNames(hubFields)
/** Every variable this component reads, for spotting misspelt ones (known-variables.ts). */
export const HUB_VARIABLES: readonly string[] = ORDER

export interface HubConfig extends LoggingConfig {
  readonly port: number
  /** Where the page sends its API calls (runtime value, else the build-time one). */
  readonly apiBaseUrl: string
  /** The key the page presents; empty makes the page ask for one (sessionStorage only). */
  readonly apiKey: string
  /** The Host values answered (DNS rebinding); undefined answers any. */
  readonly allowedHosts: AllowedHosts | undefined
  /** VITE_* values inlined into a development build. */
  readonly buildTime: { readonly apiBaseUrl?: string; readonly apiKey?: string }
}

/**
 * The hub reads SVC_APP_API_BASE_URL / SVC_APP_API_KEY at startup into its
 * runtime config script; VITE_API_BASE_URL / VITE_API_KEY are inlined into
 * a development build instead. The page itself reads no environment.
 */
export function loadHubConfig(env: Environment): HubConfig {
  const v = validateEnvironment(hubConfigSchema, env, ORDER)
  const apiBaseUrl = v.SVC_APP_API_BASE_URL ?? v.VITE_API_BASE_URL
  if (!apiBaseUrl) throw new ConfigError('SVC_APP_API_BASE_URL', undefined, 'is required (or VITE_API_BASE_URL for a development build)')
  return Object.freeze({
    ...resolveLogging(v.SVC_APP_APP_ENV, v.SVC_APP_LOG_LEVEL, v.SVC_APP_LOG_FORMAT),
    port: v.SVC_APP_PORT,
    apiBaseUrl,
    apiKey: v.SVC_APP_API_KEY ?? '',
    allowedHosts: v.SVC_APP_ALLOWED_HOSTS,
    buildTime: Object.freeze({ apiBaseUrl: v.VITE_API_BASE_URL, apiKey: v.VITE_API_KEY }),
  })
}
