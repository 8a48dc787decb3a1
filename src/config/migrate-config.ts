import { type } from 'arktype'
import { databaseUrlField } from './api-config.ts'
import { commonFields, resolveLogging, type LoggingConfig } from './common-config.ts'
import type { Environment } from './environment.ts'
import { validateEnvironment, variableNames } from './validate-env.ts'

const migrateFields = { SVC_APP_DATABASE_URL: databaseUrlField, ...commonFields } as const
const ORDER = variableNames(migrateFields)
/** Every variable this component reads, for spotting misspelt ones (known-variables.ts). */
export const MIGRATE_VARIABLES: readonly string[] = ORDER

export interface MigrateConfig extends LoggingConfig {
  readonly databaseUrl: string
}

/**
 * The migrator needs only the database and how to log
 * (docs/reference/configuration.md "Migrate").
 */
export function loadMigrateConfig(env: Environment): MigrateConfig {
  const v = validateEnvironment(type(migrateFields), env, ORDER)
  return Object.freeze({
    ...resolveLogging(v.SVC_APP_APP_ENV, v.SVC_APP_LOG_LEVEL, v.SVC_APP_LOG_FORMAT),
    databaseUrl: v.SVC_APP_DATABASE_URL,
  })
}
