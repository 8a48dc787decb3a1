/**
 * The upstream layer's interface: what the pipeline and the API client
 * see of the outbound clients (`upstream-pool.ts` makes them: fetch,
 * `fetch-client.ts`, and our HTTP/1.1 client, `http1-client.ts`). The
 * types live here, apart from the clients, so that no client imports
 * another.
 */
import type { AbortLike } from '../../async/abort-flag.ts'
import type { HeaderMap } from '../../diff/index.ts'
import type { HttpClientMetrics, SvcTarget } from '../../metrics/index.ts'
import type { RequestFields } from '../../net/field-list.ts'
import type { HttpClientSettings } from '../policy/shadow-settings.ts'
import type { ResponseRelay } from './http1-response.ts'
import { toUpstreamError, type UpstreamError } from './upstream-error.ts'

export interface UpstreamRequest {
  readonly method: string
  /** Path and query, appended to the upstream's base URL. */
  readonly pathAndQuery: string
  readonly headers: Headers
  readonly body: Uint8Array | ReadableStream<Uint8Array> | null
  /** Aborts the wait for a connection slot, the request and its body. */
  readonly signal: AbortSignal
}

/** One upstream (live, shadow or the API) at a base URL. */
export interface UpstreamClient {
  readonly target: SvcTarget
  readonly baseUrl: string
  /**
   * Sends a request once a connection slot for the host is free. Resolves
   * with the response as soon as its headers are in; the slot is held until
   * `done()` of the returned exchange is called (after the body is read or
   * forwarded). Rejects with an UpstreamError (slot released).
   */
  send(request: UpstreamRequest): Promise<UpstreamExchange>
}

export interface UpstreamExchange {
  readonly response: Response
  /** Milliseconds from sending to the response headers. */
  readonly latencyMs: number
  /** Frees the connection slot; idempotent. */
  done(): void
}

/** A response read whole within a bound, or the fact that the budget for its body ran out. */
export type WholeResponse =
  | {
      readonly kind: 'complete'
      readonly status: number
      readonly headers: HeaderMap
      readonly body: Uint8Array
      /** Milliseconds from sending to the response headers. */
      readonly latencyMs: number
    }
  | { readonly kind: 'over-budget' }

/**
 * A request with its body read whole (the counterpart of WholeResponse):
 * what the shadow is sent, and what our HTTP/1.1 client sends live on the
 * raw server. Ended early through an AbortLike, which a comparison makes
 * lighter than an AbortSignal (`src/async/abort-flag.ts`).
 */
export interface WholeRequest extends Omit<UpstreamRequest, 'headers' | 'body' | 'signal'> {
  /** The client's request fields as forwarded (the shadow's client adds `X-Svc-Mode`). */
  readonly headers: RequestFields
  readonly body: Uint8Array | null
  readonly signal: AbortLike
}

/**
 * The shadow's client: it adds `X-Svc-Mode: shadow` to the request's
 * headers (live's), and reads the response whole, never streamed on.
 */
export interface ShadowClient {
  /**
   * `send` with callbacks: `outcome` is told once, from the socket's own
   * callback for our HTTP/1.1 client (no promise between the shadow's last
   * bytes and the comparison).
   */
  exchange(request: WholeRequest, maxBodyBytes: number, reserve: ((bytes: number) => boolean) | undefined, outcome: ExchangeOutcome): void
  /**
   * Rejects with an UpstreamError: a failed body read, a body over
   * `maxBodyBytes` (`too_large`), a response the proxy does not take
   * (`bad_response`: a status outside 100..599, Content-Length with
   * Transfer-Encoding, malformed bytes) or a head over MAX_HEAD_BYTES.
   * @param maxBodyBytes 0: unlimited
   * @param reserve asked before each piece of the body is kept; `false` drops it (`over-budget`)
   */
  send(request: WholeRequest, maxBodyBytes: number, reserve?: (bytes: number) => boolean): Promise<WholeResponse>
}

/** Told once how an exchange ended: the response, or an UpstreamError. */
export interface ExchangeOutcome {
  completed(response: WholeResponse): void
  failed(error: UpstreamError): void
}

/** A ShadowClient from a `send` that gives a promise: its `exchange` told when the promise settles. */
export function shadowClientOf(send: ShadowClient['send']): ShadowClient {
  return {
    send,
    exchange(request, maxBodyBytes, reserve, outcome) {
      send(request, maxBodyBytes, reserve).then(
        (response) => outcome.completed(response),
        (error: unknown) => outcome.failed(toUpstreamError(error, 'shadow', request.signal)),
      )
    },
  }
}

export interface UpstreamPool {
  /** The client of one upstream, made once; clients of one origin share a slot count and a pool. */
  client(target: SvcTarget, baseUrl: string): UpstreamClient
  /**
   * The shadow's client, one per protocol: for an `http:` shadow our
   * HTTP/1.1 client (`http1-client.ts`) or fetch, as the settings'
   * `shadowClient` says; fetch for `https:`. It shares the host's
   * connection slots with `client()`.
   * @param headTimeoutMs bounds the wait for the response head, from the call; 0: only the request's signal does
   */
  shadowClient(baseUrl: string, headTimeoutMs?: number): ShadowClient
  /**
   * Live's client on the raw server (docs/proxy.md "The raw server"): our
   * HTTP/1.1 client relaying each response as it is read, on the host's
   * connection slots and idle list; undefined for a live that is not `http:`.
   * @param headTimeoutMs bounds the wait for the response head, from the call (the live timeout)
   */
  liveRelayClient(baseUrl: string, headTimeoutMs: number): Http1Client | undefined
  /** Closes the idle connections of every session. */
  close(): void
}

export interface UpstreamPoolOptions {
  readonly settings: HttpClientSettings
  /** Records `http_client_request_duration_seconds` per upstream. */
  readonly metrics?: HttpClientMetrics
}

export interface Http1Client {
  /**
   * Sends the request and reads the response whole, within `maxBodyBytes`
   * (0: unlimited; past it, a `too_large` UpstreamError), asking `reserve`
   * before each piece of the body is kept. Rejects with an UpstreamError.
   */
  send(request: WholeRequest, maxBodyBytes: number, reserve?: (bytes: number) => boolean): Promise<WholeResponse>
  /** `send` with callbacks: `outcome` is told once, from the socket's callback that read the response's end. */
  exchange(request: WholeRequest, maxBodyBytes: number, reserve: ((bytes: number) => boolean) | undefined, outcome: ExchangeOutcome): void
  /**
   * Sends the request and hands the response to `relay` as it is read
   * (live's relay, `relay-live.ts`); `outcome` is told once it is complete
   * (the body empty: the relay had it) or failed with an UpstreamError,
   * before or after the head was relayed. With callbacks, not a promise:
   * live's response goes on to the client, and the client's next request
   * is read, within the socket's own callback.
   */
  relay(request: WholeRequest, relay: ResponseRelay, outcome: ExchangeOutcome): void
}
