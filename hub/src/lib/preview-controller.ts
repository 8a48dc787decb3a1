import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { ApiError, isAbortError } from './api-error.ts'
import type { DiffConfig, DiffPreview } from './types.ts'

export interface PreviewControllerOptions {
  /** Quiet time after the last edit before a preview is asked for. @default 400 */
  readonly delayMs?: number
  /** Wait before asking again when the API says another preview of the gate runs (409). @default 1500 */
  readonly busyRetryMs?: number
  /** How many times a 409 is retried before it is shown as an error. @default 5 */
  readonly busyRetries?: number
}

/**
 * The preview of a candidate diff_config while it is edited: asked for
 * once the edits pause, the previous request aborted when a new one
 * starts, and a 409 (the API runs at most one preview per gate; an
 * aborted request may still be running there) retried a few times before
 * it is shown. The last preview is kept while the next one loads, with
 * the config it was made for, so the sentence does not flash.
 */
export class PreviewController implements ReactiveController {
  /** The last preview and the config it answers. */
  value: { readonly config: DiffConfig; readonly preview: DiffPreview } | undefined = undefined
  error: unknown = undefined
  /** A request is waiting for its delay or for the API. */
  pending = false
  /** The API answered 409: another preview of the gate runs; asking again shortly. */
  busy = false

  readonly #delayMs: number
  readonly #busyRetryMs: number
  readonly #busyRetries: number
  #config: DiffConfig | undefined
  #timer: ReturnType<typeof setTimeout> | undefined
  #abort: AbortController | undefined
  #run = 0
  #attempt = 0

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly task: (config: DiffConfig, signal: AbortSignal) => Promise<DiffPreview>,
    options: PreviewControllerOptions = {},
  ) {
    this.#delayMs = options.delayMs ?? 400
    this.#busyRetryMs = options.busyRetryMs ?? 1500
    this.#busyRetries = options.busyRetries ?? 5
    host.addController(this)
  }

  /** The config being previewed (the last one asked for), if any. */
  get config(): DiffConfig | undefined {
    return this.#config
  }

  /** Previews `config` once the edits pause; `undefined` (nothing to preview) clears everything. */
  request(config: DiffConfig | undefined): void {
    if (config === undefined) return this.clear()
    if (this.#config !== undefined && sameConfig(this.#config, config) && (this.pending || this.error === undefined)) return
    this.#config = config
    this.#attempt = 0
    this.#schedule(this.#delayMs)
  }

  /** Asks again now (a "Try again" button). */
  retry(): void {
    if (this.#config === undefined) return
    this.#attempt = 0
    this.#schedule(0)
  }

  /** Forgets the config, the preview and any request under way. */
  clear(): void {
    this.#stop()
    this.#config = undefined
    this.value = undefined
    this.error = undefined
    this.pending = false
    this.busy = false
    this.host.requestUpdate()
  }

  hostDisconnected(): void {
    this.#stop()
    this.pending = false
  }

  #stop(): void {
    clearTimeout(this.#timer)
    this.#timer = undefined
    this.#abort?.abort()
    this.#abort = undefined
    this.#run++
  }

  #schedule(delayMs: number): void {
    this.#stop()
    this.pending = true
    this.error = undefined
    this.host.requestUpdate()
    const run = this.#run
    this.#timer = setTimeout(() => void this.#start(run), delayMs)
  }

  async #start(run: number): Promise<void> {
    const config = this.#config
    if (run !== this.#run || config === undefined) return
    const abort = new AbortController()
    this.#abort = abort
    try {
      const preview = await this.task(config, abort.signal)
      if (run !== this.#run) return
      this.value = { config, preview }
      this.busy = false
    } catch (error) {
      if (run !== this.#run || isAbortError(error)) return
      if (error instanceof ApiError && error.status === 409 && this.#attempt < this.#busyRetries) {
        this.#attempt++
        this.busy = true
        this.host.requestUpdate()
        this.#timer = setTimeout(() => void this.#start(run), this.#busyRetryMs)
        return
      }
      this.busy = false
      this.error = error
    }
    this.#abort = undefined
    this.pending = false
    this.host.requestUpdate()
  }
}

/** Whether two diff configs say the same (lists in order: the API keeps them so). */
export function sameConfig(a: DiffConfig, b: DiffConfig): boolean {
  return (
    a.float_tolerance === b.float_tolerance &&
    a.sort_arrays === b.sort_arrays &&
    sameList(a.ignored_fields, b.ignored_fields) &&
    sameList(a.included_fields, b.included_fields)
  )
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i])
}
