import { jsonFormat } from './json-format.ts'
import type { LogFormat } from './log-formats.ts'
import { LOG_LEVEL_NAMES, LOG_LEVEL_RANK, type LogLevel } from './log-levels.ts'
import { dateText, type LogAttrs, type RecordFormat } from './record-format.ts'
import { writeStdout } from './stdout-writer.ts'
import { textFormat } from './text-format.ts'

/** A structured logger: a message and flat attributes per record. */
export interface Logger {
  /** The least severe level this logger writes. */
  readonly level: LogLevel
  /** Whether a record at `level` would be written; check it before building costly attributes. */
  enabled(level: LogLevel): boolean
  log(level: LogLevel, msg: string, attrs?: LogAttrs): void
  debug(msg: string, attrs?: LogAttrs): void
  info(msg: string, attrs?: LogAttrs): void
  warn(msg: string, attrs?: LogAttrs): void
  error(msg: string, attrs?: LogAttrs): void
  /** A logger that adds these attributes to every record, before the record's own. */
  child(attrs: LogAttrs): Logger
}

export interface LoggerOptions {
  /** Records below this level are dropped. */
  readonly level: LogLevel
  /** `text` (logfmt-style, for people) or `json` (one object per line, for machines). */
  readonly format: LogFormat
  /**
   * Receives each line, without its trailing newline.
   * @default a synchronous write to stdout
   */
  readonly write?: (line: string) => void
  /**
   * The clock stamped on records.
   * @default () => new Date()
   */
  readonly now?: () => Date
}

const FORMATS: Readonly<Record<LogFormat, RecordFormat>> = { text: textFormat, json: jsonFormat }

/** What a logger and its children share. */
interface Sink {
  readonly level: LogLevel
  readonly rank: number
  readonly format: RecordFormat
  readonly write: (line: string) => void
  readonly now: () => Date
  /** Error stacks are logged at debug level only. */
  readonly stacks: boolean
}

/**
 * Makes the service's logger. Records look like Go's slog output:
 *
 * text: `time=2026-11-21T10:00:00.000Z level=INFO msg="response diff detected" request.id=... live_status=200`
 * json: `{"time":"2026-11-21T10:00:00.000Z","level":"INFO","msg":"response diff detected","request.id":"...","live_status":200}`
 *
 * Values: strings quoted in text when they hold spaces, quotes, `=` or
 * control characters; objects and arrays as JSON; an Error as its message
 * and causes (plus `<key>.stack` when the level is debug); binary data as
 * its length; `undefined` attributes left out. Logging never throws, even on
 * circular objects or BigInts.
 *
 * It prints what it is given and nothing else: there is no "dump the config
 * or environment" helper, and callers must not pass secrets (API keys,
 * Authorization headers, database URLs with passwords) as attributes.
 */
export function createLogger(options: LoggerOptions): Logger {
  return new StructuredLogger(
    {
      level: options.level,
      rank: LOG_LEVEL_RANK[options.level],
      format: FORMATS[options.format],
      write: options.write ?? writeStdout,
      now: options.now ?? (() => new Date()),
      stacks: options.level === 'debug',
    },
    '',
  )
}

class StructuredLogger implements Logger {
  constructor(
    private readonly sink: Sink,
    /** The child attributes, rendered once. */
    private readonly context: string,
  ) {}

  get level(): LogLevel {
    return this.sink.level
  }

  enabled(level: LogLevel): boolean {
    return LOG_LEVEL_RANK[level] >= this.sink.rank
  }

  log(level: LogLevel, msg: string, attrs?: LogAttrs): void {
    if (!(LOG_LEVEL_RANK[level] >= this.sink.rank)) return
    const { format, write } = this.sink
    let line: string
    try {
      const fragment = attrs === undefined ? this.context : this.context + this.render(attrs)
      line = format.line(this.time(), LOG_LEVEL_NAMES[level], String(msg), fragment)
    } catch (error) {
      // A hostile attribute (a throwing getter or proxy): keep the message, say why the rest is missing.
      const reason = format.attrs({ '!BADATTRS': safeMessage(error) }, false)
      line = format.line(
        this.time(),
        LOG_LEVEL_NAMES[level],
        safeString(msg),
        this.context + reason,
      )
    }
    try {
      write(line)
    } catch {
      // The sink failed; logging must not break the caller.
    }
  }

  debug(msg: string, attrs?: LogAttrs): void {
    this.log('debug', msg, attrs)
  }

  info(msg: string, attrs?: LogAttrs): void {
    this.log('info', msg, attrs)
  }

  warn(msg: string, attrs?: LogAttrs): void {
    this.log('warn', msg, attrs)
  }

  error(msg: string, attrs?: LogAttrs): void {
    this.log('error', msg, attrs)
  }

  child(attrs: LogAttrs): Logger {
    let fragment: string
    try {
      fragment = this.render(attrs)
    } catch (error) {
      fragment = this.sink.format.attrs({ '!BADATTRS': safeMessage(error) }, false)
    }
    return new StructuredLogger(this.sink, this.context + fragment)
  }

  private render(attrs: LogAttrs): string {
    return this.sink.format.attrs(attrs, this.sink.stacks)
  }

  private time(): string {
    try {
      return dateText(this.sink.now())
    } catch {
      return dateText(new Date())
    }
  }
}

function safeMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error)
  } catch {
    return 'unknown error'
  }
}

function safeString(value: unknown): string {
  try {
    return String(value)
  } catch {
    return '[unprintable]'
  }
}
