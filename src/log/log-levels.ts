/**
 * Log levels, least severe first (SVC_APP_LOG_LEVEL,
 * docs/reference/configuration.md).
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** A level's rank: a record is written when its rank is at least the logger's. */
export const LOG_LEVEL_RANK: Readonly<Record<LogLevel, number>> = {
  debug: 0,
  info: 1,
  warn: 2,
  error: 3,
}

/** The level as printed, as Go's slog prints it. */
export const LOG_LEVEL_NAMES: Readonly<Record<LogLevel, string>> = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
}
