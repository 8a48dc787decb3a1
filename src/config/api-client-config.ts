import { type } from 'arktype'
import { ConfigError } from './config-error.ts'
import { apiKeyField, httpUrlField } from './env-fields.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment } from './validate-env.ts'

/** The API a command-line tool talks to (docs/ci.md "Connecting"). */
export interface ApiClientConfig {
  /** Base URL without a trailing slash. */
  readonly apiUrl: string
  readonly apiKey: string
}

/** The flags that name the API, in every command that calls it. */
export const API_CLIENT_FLAGS = { 'api-url': 'value', 'api-key': 'value' } as const

const envFields = { 'SVC_APP_API_URL?': httpUrlField, 'SVC_APP_API_KEY?': apiKeyField } as const
const flagFields = { '--api-url?': httpUrlField, '--api-key?': apiKeyField } as const

/**
 * SVC_APP_API_URL and SVC_APP_API_KEY, each overridden by its flag
 * (`--api-url`, `--api-key`); both required. The variable is the better
 * place for the key: a flag shows in the process list and shell history.
 */
export function loadApiClientConfig(env: Environment, flags: Readonly<Record<string, string | undefined>>): ApiClientConfig {
  const fromEnv = validateEnvironment(type(envFields), env, ['SVC_APP_API_URL', 'SVC_APP_API_KEY'])
  const fromFlags = validateEnvironment(type(flagFields), flags, ['--api-url', '--api-key'])
  const apiUrl = fromFlags['--api-url'] ?? fromEnv.SVC_APP_API_URL
  const apiKey = fromFlags['--api-key'] ?? fromEnv.SVC_APP_API_KEY
  if (apiUrl === undefined) throw new ConfigError('SVC_APP_API_URL', undefined, 'is required (or --api-url): the API to ask')
  if (apiKey === undefined) throw new ConfigError('SVC_APP_API_KEY', undefined, 'is required (or --api-key): the API\'s bearer key')
  return Object.freeze({ apiUrl, apiKey })
}
