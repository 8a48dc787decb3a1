import { CompiledDiffConfig } from './compiled-diff-config.ts'
import type { DiffConfig } from './diff-config.ts'
import type { BodyLimits } from './message-body.ts'
import { Redaction } from './redaction.ts'

/** How captures are compared and redacted: one gate's settings. */
export interface CaptureOptions {
  /** The gate's DiffConfig (docs/reference/api.md "Gate"). */
  diff: DiffConfig
  /**
   * Extra redacted fields, added to the defaults (docs/diff.md "Redaction and
   * what is stored"). @default []
   */
  redactedFields: readonly string[]
  /**
   * Bodies above this many bytes, raw or decoded, are not diffed (their
   * bytes are still compared for equality). 0 or absent means no limit.
   * @default 0
   */
  maxBodyBytes?: number
}

/** Decoded output never goes past this, whatever maxBodyBytes says: a decompression bomb guard. */
export const MAX_DECODED_BYTES = 64 * 1024 * 1024

/**
 * CaptureOptions with every field path parsed and compiled, once per
 * configuration: the proxy compiles at startup and passes this to
 * processCapture for every request.
 */
export class CompiledCaptureOptions {
  readonly diff: CompiledDiffConfig
  readonly redaction: Redaction
  readonly limits: BodyLimits

  /** @throws FieldPathError when a path does not follow the notation */
  constructor(readonly options: CaptureOptions) {
    this.redaction = new Redaction(options.redactedFields)
    // Redacted fields are also excluded from diff computation (docs/diff.md
    // "ignored_fields, included_fields, redacted fields").
    this.diff = new CompiledDiffConfig(options.diff, this.redaction.fields)
    const maxBodyBytes =
      options.maxBodyBytes !== undefined && options.maxBodyBytes > 0 ? options.maxBodyBytes : 0
    this.limits = Object.freeze({
      maxBodyBytes,
      maxDecodedBytes: Math.max(maxBodyBytes, MAX_DECODED_BYTES),
    })
    Object.freeze(this)
  }
}

/** Compiles CaptureOptions once; processCapture and compareResponses accept either form. */
export function compileCaptureOptions(options: CaptureOptions): CompiledCaptureOptions {
  return new CompiledCaptureOptions(options)
}

/**
 * Plain options are compiled once per distinct content: the API passes a
 * gate's settings as read for each capture, and compiling costs more than
 * building the key. Bounded, and emptied when full.
 */
const compiledByContent = new Map<string, CompiledCaptureOptions>()
const MAX_CACHED_OPTIONS = 256

export function ensureCompiled(
  options: CaptureOptions | CompiledCaptureOptions,
): CompiledCaptureOptions {
  if (options instanceof CompiledCaptureOptions) return options
  const key = JSON.stringify([options.diff, options.redactedFields, options.maxBodyBytes ?? 0])
  let compiled = compiledByContent.get(key)
  if (compiled === undefined) {
    compiled = new CompiledCaptureOptions(options)
    if (compiledByContent.size >= MAX_CACHED_OPTIONS) compiledByContent.clear()
    compiledByContent.set(key, compiled)
  }
  return compiled
}
