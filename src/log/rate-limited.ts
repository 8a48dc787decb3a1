import type { Logger } from './logger.ts'
import type { LogLevel } from './log-levels.ts'
import type { LogAttrs } from './record-format.ts'
import { Throttle } from './throttle.ts'

/**
 * A record's attributes, or what makes them: a function is called only for
 * a record that is written, so that a flood of suppressed ones costs no
 * attributes each (a shadow that is down fails every request).
 */
export type LazyLogAttrs = LogAttrs | (() => LogAttrs)

/** A logger that writes at most one record per key per interval. */
export interface RateLimitedLogger {
  /**
   * Logs unless a record with the same key (by default the message) was
   * logged less than an interval ago. A record that follows suppressed ones
   * carries `suppressed=<count>`.
   */
  log(level: LogLevel, msg: string, attrs?: LazyLogAttrs, key?: string): void
  debug(msg: string, attrs?: LazyLogAttrs, key?: string): void
  info(msg: string, attrs?: LazyLogAttrs, key?: string): void
  warn(msg: string, attrs?: LazyLogAttrs, key?: string): void
  error(msg: string, attrs?: LazyLogAttrs, key?: string): void
  /**
   * Writes, for each key with suppressed records, its last record with the
   * count. Call it at shutdown so the tail of a flood is not lost.
   */
  flush(): void
}

export interface RateLimitedOptions {
  /**
   * A monotonic clock in milliseconds, for tests.
   * @default () => performance.now()
   */
  readonly now?: () => number
  /**
   * Distinct keys tracked at most.
   * @default 1000
   */
  readonly maxKeys?: number
}

interface Suppressed {
  level: LogLevel
  msg: string
  attrs: LazyLogAttrs | undefined
}

/**
 * Wraps a logger for warnings that can fire per request (callbacks full,
 * breaker open): one line per interval and key instead of thousands. The
 * metrics keep the exact counts; the log says that it happened and how
 * often. Give a child logger to add context.
 */
export function rateLimited(
  logger: Logger,
  intervalMs: number,
  options: RateLimitedOptions = {},
): RateLimitedLogger {
  const maxKeys = options.maxKeys ?? 1000
  const throttle = new Throttle({ intervalMs, now: options.now, maxKeys })
  /** The last suppressed record per key, for `flush`; bounded like the throttle's keys (the key held longest goes first). */
  const last = new Map<string, Suppressed>()

  function write(level: LogLevel, msg: string, lazy: LazyLogAttrs | undefined, suppressed: number) {
    const attrs = typeof lazy === 'function' ? lazy() : lazy
    logger.log(level, msg, suppressed > 0 ? { ...attrs, suppressed } : attrs)
  }

  const limited: RateLimitedLogger = {
    log(level, msg, attrs, key = msg) {
      if (!logger.enabled(level)) return
      const suppressed = throttle.admit(key)
      if (suppressed === undefined) {
        // Held in place: a flood suppresses a record per request, and a
        // new entry each time would be an object and a map update each.
        const held = last.get(key)
        if (held !== undefined) {
          held.level = level
          held.msg = msg
          held.attrs = attrs
          return
        }
        last.set(key, { level, msg, attrs })
        if (last.size > maxKeys) last.delete(last.keys().next().value as string)
        return
      }
      last.delete(key)
      write(level, msg, attrs, suppressed)
    },
    debug: (msg, attrs, key) => limited.log('debug', msg, attrs, key),
    info: (msg, attrs, key) => limited.log('info', msg, attrs, key),
    warn: (msg, attrs, key) => limited.log('warn', msg, attrs, key),
    error: (msg, attrs, key) => limited.log('error', msg, attrs, key),
    flush() {
      for (const [key, suppressed] of throttle.drain()) {
        const record = last.get(key)
        last.delete(key)
        if (record) write(record.level, record.msg, record.attrs, suppressed)
      }
    },
  }
  return limited
}
