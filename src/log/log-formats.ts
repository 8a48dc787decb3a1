/**
 * Output formats (SVC_APP_LOG_FORMAT, docs/reference/configuration.md),
 * modelled on Go's slog: `text` is logfmt-style `key=value` pairs, `json` one
 * object per line.
 */
export const LOG_FORMATS = ['text', 'json'] as const
export type LogFormat = (typeof LOG_FORMATS)[number]
