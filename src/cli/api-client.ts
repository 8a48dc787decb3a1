import type { ApiClientConfig } from '../config/api-client-config.ts'
import { withoutPassword } from '../net/base-url.ts'
import { ApiCallError } from './api-call-error.ts'

export interface ApiClientOptions extends ApiClientConfig {
  /** How long one call may take before it counts as failed, in ms. @default 30000 */
  readonly timeoutMs?: number
  /** Further tries after a 429, a 503 or no answer at all. @default 5 */
  readonly retries?: number
  /** Longest wait before a retry, in ms, whatever Retry-After asks. @default 30000 */
  readonly maxRetryDelayMs?: number
}

/** Statuses worth another try: rate limited, or the API's ingest backlog full (both send Retry-After). */
const RETRIED_STATUSES = new Set([429, 503])

/**
 * The API as the command-line tools use it (docs/ci.md): bearer key,
 * JSON in and out, `data` unwrapped, and a one-line ApiCallError for
 * anything else. Every call it makes is safe to repeat (reads, and
 * createRequest, idempotent on its id), so a 429 or 503 is retried after
 * its Retry-After and a call that got no answer after a short pause.
 */
export class ApiClient {
  private readonly timeoutMs: number
  private readonly retries: number
  private readonly maxRetryDelayMs: number

  constructor(private readonly options: ApiClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000
    this.retries = options.retries ?? 5
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000
  }

  /** The absolute URL of `path` on the API, without any credentials its base URL holds. */
  urlOf(path: string): string {
    const url = new URL(this.options.apiUrl + path)
    url.username = ''
    url.password = ''
    return url.href
  }

  /** The `data` of a JSON answer with a 2xx status. */
  async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body))
    const parsed = (await response.json().catch(() => undefined)) as { data?: T } | undefined
    if (parsed === undefined || !('data' in parsed)) {
      throw new ApiCallError(`the API answered ${method} ${path} with a body that is not the expected JSON`, response.status)
    }
    return parsed.data as T
  }

  /** A 2xx answer whose body the caller reads (a stream); the timeout covers the head only. */
  open(path: string): Promise<Response> {
    return this.send('GET', path, undefined, false)
  }

  private async send(method: string, path: string, body: string | undefined, timeBody = true): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), this.timeoutMs)
      let response: Response
      try {
        response = await fetch(this.options.apiUrl + path, {
          method,
          headers: {
            authorization: `Bearer ${this.options.apiKey}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body,
          signal: controller.signal,
        })
        if (!timeBody) clearTimeout(timer)
        if (response.ok) {
          if (timeBody) {
            // Read within the same timeout, then hand back a response that holds the bytes.
            const bytes = await response.arrayBuffer()
            clearTimeout(timer)
            return new Response(bytes, { status: response.status, headers: response.headers })
          }
          return response
        }
      } catch (error) {
        clearTimeout(timer)
        if (attempt < this.retries) {
          await Bun.sleep(Math.min(250 * 2 ** attempt, this.maxRetryDelayMs))
          continue
        }
        const reason = controller.signal.aborted ? `no answer within ${this.timeoutMs} ms` : errorText(error)
        throw new ApiCallError(`cannot reach the API at ${withoutPassword(this.options.apiUrl)} (${method} ${path}): ${reason}`, 0)
      }
      clearTimeout(timer)
      if (RETRIED_STATUSES.has(response.status) && attempt < this.retries) {
        await response.arrayBuffer().catch(() => undefined)
        await Bun.sleep(retryDelay(response.headers.get('retry-after'), attempt, this.maxRetryDelayMs))
        continue
      }
      throw await refusal(method, path, response)
    }
  }
}

/** Retry-After in seconds (RFC 9110 §10.2.3), else an exponential pause; at most `max` ms. */
function retryDelay(header: string | null, attempt: number, max: number): number {
  const seconds = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : undefined
  return Math.min(seconds !== undefined ? seconds * 1000 : 500 * 2 ** attempt, max)
}

/** The API's problem as one line: status, type and detail (a problem never holds a secret). */
async function refusal(method: string, path: string, response: Response): Promise<ApiCallError> {
  const problem = (await response.json().catch(() => undefined)) as { type?: string; title?: string; detail?: string } | undefined
  const type = problem?.type?.replace(/^.*\/errors\//, '')
  const what = problem?.detail ?? problem?.title ?? response.statusText
  return new ApiCallError(
    `the API answered ${method} ${path} with ${response.status}${type ? ` (${type})` : ''}${what ? `: ${what}` : ''}`,
    response.status,
    problem?.type,
  )
}

function errorText(error: unknown): string {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  return code && !message.includes(code) ? `${code}: ${message}` : message
}
