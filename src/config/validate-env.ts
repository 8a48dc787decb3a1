import { type, type Type } from 'arktype'
import { ConfigError } from './config-error.ts'
import type { Environment } from './environment.ts'

/** Variables whose values are never echoed in an error line. */
const SECRET_VARIABLES = new Set(['SVC_APP_API_KEY', 'VITE_API_KEY', '--api-key'])

/**
 * Runs a component's schema over its variables (`order`, in table order)
 * and returns its output, or throws the ConfigError of the first variable
 * that breaks its rule. An empty value counts as unset, so `FOO=` in `.env`
 * gives the default rather than a parse error.
 */
export function validateEnvironment<S extends Type<any>>(schema: S, env: Environment, order: readonly string[]): S['infer'] {
  const input: Record<string, string> = {}
  for (const key of order) {
    const value = env[key]
    if (value !== undefined && value.trim() !== '') input[key] = value
  }
  const out = schema(input)
  if (!(out instanceof type.errors)) return out as S['infer']
  const errors = [...out].sort((a, b) => rank(order, a.path[0]) - rank(order, b.path[0]))
  const first = errors[0]!
  const variable = String(first.path[0] ?? 'configuration')
  const value = input[variable]
  const rule = value === undefined ? 'is required' : `must be ${first.expected}`
  // ConfigError masks a URL's credentials.
  throw new ConfigError(variable, value, rule, SECRET_VARIABLES.has(variable))
}

function rank(order: readonly string[], key: PropertyKey | undefined): number {
  const index = order.indexOf(String(key))
  return index === -1 ? order.length : index
}

/** The variables of a component's field table, in table order (`'X?'` is `X`), for error ordering. */
export function variableNames(fields: object): string[] {
  return Object.keys(fields).map((key) => key.replace(/\?$/, ''))
}
