import { parseJson } from '../../../src/diff/large-integer.ts'
import { ApiError, isAbortError, isProblem } from './api-error.ts'
import { insightQueryToString } from './insights-query.ts'
import type { EndpointSort, FieldSort, InsightQuery, SignatureSort } from './insights-query.ts'
import { gateQueryToString, requestQueryToString } from './query-string.ts'
import type { GateListQuery, RequestListQuery } from './query-string.ts'
import type {
  DiffPreview,
  EndpointStats,
  FieldStats,
  Gate,
  GateCreate,
  GateUpdate,
  GlobalStats,
  Page,
  PaginationMeta,
  PreviewRequest,
  RediffJob,
  RequestDetail,
  RequestSummary,
  ServerConfig,
  SignatureStats,
  Suggestion,
} from './types.ts'

export interface ApiClientOptions {
  /** API base URL without a trailing slash; empty for the hub's own origin. */
  readonly baseUrl: string
  readonly apiKey: string
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch
}

/**
 * The management API as the hub uses it (docs/reference/api.md "Operations").
 * Every call takes an AbortSignal so a page that navigates away cancels what it
 * no longer needs. Failures throw `ApiError`; an abort rethrows the AbortError
 * untouched so callers can ignore it.
 */
export class ApiClient {
  readonly baseUrl: string
  readonly #key: string
  readonly #fetch: typeof fetch

  constructor(options: ApiClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '')
    this.#key = options.apiKey
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis)
  }

  getConfig(signal?: AbortSignal): Promise<ServerConfig> {
    return this.#data('GET', '/config', signal)
  }

  getStats(signal?: AbortSignal): Promise<GlobalStats> {
    return this.#data('GET', '/stats', signal)
  }

  listGates(query: GateListQuery, signal?: AbortSignal): Promise<Page<Gate>> {
    return this.#page('/gates', gateQueryToString(query), signal)
  }

  getGate(gateId: string, signal?: AbortSignal): Promise<Gate> {
    return this.#data('GET', `/gates/${enc(gateId)}`, signal)
  }

  createGate(body: GateCreate, signal?: AbortSignal): Promise<Gate> {
    return this.#data('POST', '/gates', signal, body)
  }

  updateGate(gateId: string, body: GateUpdate, signal?: AbortSignal): Promise<Gate> {
    return this.#data('PATCH', `/gates/${enc(gateId)}`, signal, body)
  }

  async deleteGate(gateId: string, signal?: AbortSignal): Promise<void> {
    await this.#send('DELETE', `/gates/${enc(gateId)}`, signal)
  }

  listRequests(gateId: string, query: RequestListQuery, signal?: AbortSignal): Promise<Page<RequestSummary>> {
    return this.#page(`/gates/${enc(gateId)}/requests`, requestQueryToString(query), signal)
  }

  getRequest(gateId: string, requestId: string, signal?: AbortSignal): Promise<RequestDetail> {
    return this.#data('GET', `/gates/${enc(gateId)}/requests/${enc(requestId)}`, signal)
  }

  /** Endpoints of a gate in a window (docs/insights.md "Endpoints"). */
  listEndpoints(gateId: string, query: InsightQuery<EndpointSort>, signal?: AbortSignal): Promise<Page<EndpointStats>> {
    return this.#page(`/gates/${enc(gateId)}/endpoints`, insightQueryToString(query), signal)
  }

  /** Diff signatures of a gate in a window (docs/insights.md "Signatures"). */
  listSignatures(gateId: string, query: InsightQuery<SignatureSort>, signal?: AbortSignal): Promise<Page<SignatureStats>> {
    return this.#page(`/gates/${enc(gateId)}/signatures`, insightQueryToString(query), signal)
  }

  /** How often each field differs, per endpoint, in a window. */
  listFields(gateId: string, query: InsightQuery<FieldSort>, signal?: AbortSignal): Promise<Page<FieldStats>> {
    return this.#page(`/gates/${enc(gateId)}/fields`, insightQueryToString(query), signal)
  }

  /** Proposed ignored_fields entries for the window (docs/insights.md "Suggestions"). */
  listSuggestions(gateId: string, window: TimeWindow, signal?: AbortSignal): Promise<Page<Suggestion>> {
    return this.#page(`/gates/${enc(gateId)}/suggestions`, windowQuery(window), signal)
  }

  /** What a candidate diff_config would silence and surface; nothing stored changes. 409 while another runs. */
  previewDiffConfig(gateId: string, body: PreviewRequest, signal?: AbortSignal): Promise<DiffPreview> {
    return this.#data('POST', `/gates/${enc(gateId)}/diff-config/preview`, signal, body)
  }

  /** Starts re-diffing the stored captures of the window under the gate's diff_config (202). 409 while a job runs. */
  startRediff(gateId: string, window: Partial<TimeWindow>, signal?: AbortSignal): Promise<RediffJob> {
    return this.#data('POST', `/gates/${enc(gateId)}/rediff`, signal, window)
  }

  getJob(gateId: string, jobId: string, signal?: AbortSignal): Promise<RediffJob> {
    return this.#data('GET', `/gates/${enc(gateId)}/jobs/${enc(jobId)}`, signal)
  }

  /** Cancels a job; answers it as it stands afterwards, when the API sends it. */
  async cancelJob(gateId: string, jobId: string, signal?: AbortSignal): Promise<RediffJob | undefined> {
    const { json } = await this.#send('DELETE', `/gates/${enc(gateId)}/jobs/${enc(jobId)}`, signal)
    return typeof json === 'object' && json !== null && 'data' in json ? (json as { data: RediffJob }).data : undefined
  }

  async #data<T>(method: string, path: string, signal?: AbortSignal, body?: unknown): Promise<T> {
    const { json, url } = await this.#send(method, path, signal, body)
    if (typeof json !== 'object' || json === null || !('data' in json)) {
      throw new ApiError({ kind: 'invalid-response', message: 'no "data" member' }, url)
    }
    return (json as { data: T }).data
  }

  async #page<T>(path: string, query: string, signal?: AbortSignal): Promise<Page<T>> {
    const { json, url } = await this.#send('GET', query ? `${path}?${query}` : path, signal)
    const j = json as { data?: unknown; pagination?: PaginationMeta } | null
    if (!j || !Array.isArray(j.data) || typeof j.pagination !== 'object') {
      throw new ApiError({ kind: 'invalid-response', message: 'no "data" list or "pagination"' }, url)
    }
    return { items: j.data as T[], pagination: j.pagination }
  }

  async #send(
    method: string,
    path: string,
    signal?: AbortSignal,
    body?: unknown,
  ): Promise<{ json: unknown; url: string }> {
    const url = `${this.baseUrl}${path}`
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (this.#key) headers.Authorization = `Bearer ${this.#key}`
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    let res: Response
    try {
      res = await this.#fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
        cache: 'no-store',
        credentials: 'omit',
      })
    } catch (error) {
      if (isAbortError(error) || signal?.aborted) throw error
      throw new ApiError({ kind: 'network', message: messageOf(error) }, url)
    }
    if (res.status === 204) return { json: undefined, url }
    const text = await res.text()
    let json: unknown
    try {
      // parseJson: a diff's integers past 2^53 keep their digits (docs/diff.md).
      json = text ? parseJson(text) : undefined
    } catch {
      json = undefined
    }
    if (!res.ok) {
      throw new ApiError({ kind: 'http', status: res.status, problem: isProblem(json) ? json : undefined }, url)
    }
    if (json === undefined) throw new ApiError({ kind: 'invalid-response', message: 'body is not JSON' }, url)
    return { json, url }
  }
}

/** A time window of the API's reads: RFC 3339 bounds, `to` defaulting to now. */
export interface TimeWindow {
  readonly from: string
  readonly to?: string
}

function windowQuery(window: TimeWindow): string {
  const out = new URLSearchParams({ from: window.from })
  if (window.to !== undefined) out.set('to', window.to)
  return out.toString()
}

function enc(segment: string): string {
  return encodeURIComponent(segment)
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
