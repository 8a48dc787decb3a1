import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from '../log/index.ts'
import { enumField } from './env-fields.ts'

export const APP_ENVS = ['development', 'production'] as const
export type AppEnv = (typeof APP_ENVS)[number]

/**
 * The variables every component shares (docs/reference/configuration.md "Every
 * component").
 */
export const commonFields = {
  SVC_APP_APP_ENV: enumField(APP_ENVS).default('development'),
  'SVC_APP_LOG_LEVEL?': enumField(LOG_LEVELS),
  'SVC_APP_LOG_FORMAT?': enumField(LOG_FORMATS),
} as const

export interface LoggingConfig {
  readonly appEnv: AppEnv
  readonly logLevel: LogLevel
  readonly logFormat: LogFormat
}

/** Log defaults follow the app env: debug/text in development, info/json in production. */
export function resolveLogging(env: AppEnv, level?: LogLevel, format?: LogFormat): LoggingConfig {
  const production = env === 'production'
  return {
    appEnv: env,
    logLevel: level ?? (production ? 'info' : 'debug'),
    logFormat: format ?? (production ? 'json' : 'text'),
  }
}
