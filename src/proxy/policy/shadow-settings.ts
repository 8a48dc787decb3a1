/**
 * The settings of the shadowing core (`createShadowHandler`), shared by the
 * proxy (from SVC_APP_* variables) and the `svc_gate` module (from its
 * directive block): docs/reference/configuration.md "Common" and "Module: the
 * `svc_gate` block and options".
 */
import type { DiffConfig } from '../../diff/diff-config.ts'
import type { CidrSet } from '../../net/cidr.ts'
import type { EndpointTemplates } from '../../insights/index.ts'
import type { ShadowRules } from './shadow-rules.ts'

/**
 * Which client an `http:` shadow gets (SVC_APP_SHADOW_CLIENT): our
 * HTTP/1.1 client over `Bun.connect`, or Bun's fetch. An `https:` shadow
 * always gets fetch. Why the default: docs/proxy.md "The shadow's client".
 */
export const SHADOW_CLIENTS = ['http1', 'fetch'] as const
export type ShadowClientKind = (typeof SHADOW_CLIENTS)[number]
export const DEFAULT_SHADOW_CLIENT: ShadowClientKind = 'http1'

/**
 * The outbound HTTP client (SVC_APP_HTTP_CLIENT_*, the module's
 * `http_client { ... }`). How each maps onto Bun's fetch is in
 * `upstream/upstream-pool.ts` and docs/proxy.md.
 */
export interface HttpClientSettings {
  /** Idle pool size across hosts; 0 means unlimited. @default 100 */
  readonly maxIdleConns: number
  /** Idle connections per host; 0 means the runtime default of 2. @default 10 */
  readonly maxIdleConnsPerHost: number
  /** Total connections per host; 0 means unlimited. @default 100 */
  readonly maxConnsPerHost: number
  /** Idle connection lifetime in ms; 0 means no timeout. @default 90000 */
  readonly idleConnTimeoutMs: number
  /** The client of an `http:` shadow (SVC_APP_SHADOW_CLIENT). @default DEFAULT_SHADOW_CLIENT */
  readonly shadowClient?: ShadowClientKind
}

export const DEFAULT_HTTP_CLIENT: HttpClientSettings = Object.freeze({
  maxIdleConns: 100,
  maxIdleConnsPerHost: 10,
  maxConnsPerHost: 100,
  idleConnTimeoutMs: 90_000,
})

/** What the core needs to forward, choose, bound and compare. */
export interface ShadowSettings {
  /** Base URL of live, without a trailing slash. */
  readonly liveUrl: string
  /** Base URL of shadow, without a trailing slash. */
  readonly shadowUrl: string
  /** The `gate` metric label: the gate UUID in API mode, `''` standalone and in the module. */
  readonly gate: string
  /** Bounds live until its response headers; expiry answers 504. @default 5000 */
  readonly liveTimeoutMs: number
  /** Bounds the whole shadow exchange, body included. @default 10000 */
  readonly shadowTimeoutMs: number
  /**
   * Bounds the wait for the shadow's response head, from when its request
   * starts (SVC_APP_SHADOW_HEAD_TIMEOUT); at most `shadowTimeoutMs`.
   * @default undefined: the shadow timeout alone
   */
  readonly shadowHeadTimeoutMs?: number
  /** Request and response bodies above this are not shadowed/compared; 0 means unlimited. */
  readonly maxBodyBytes: number
  /** Fraction of eligible requests shadowed, 0 to 1. @default 1 */
  readonly samplingRate: number
  /**
   * Fraction of the shadowed requests that get a noise check, 0 to 1
   * (SVC_APP_NOISE_SAMPLE_RATE; `noise-sampler.ts`). @default 0: off
   */
  readonly noiseSampleRate?: number
  /** Noise-check repeats in any one second, 1 to 10,000 (SVC_APP_NOISE_MAX_PER_SECOND). @default 5 */
  readonly noiseMaxPerSecond?: number
  /** Compiled once at startup (`compileShadowRules`), base rules included. */
  readonly shadowRules: ShadowRules
  /** Background comparisons at the same time; 0 means unbounded. @default 200 */
  readonly maxConcurrentCallbacks: number
  /**
   * Bytes the background comparisons may hold together, at least 1
   * (`byte-budget.ts`); also the shadow's body bound when `maxBodyBytes`
   * is 0. @default DEFAULT_MAX_BYTES_IN_FLIGHT (256 MiB)
   */
  readonly maxBytesInFlight?: number
  readonly httpClient: HttpClientSettings
  /** Redacted on top of the defaults (docs/diff.md "Redaction and what is stored"). */
  readonly redactedFields: readonly string[]
  /**
   * Peers whose X-Forwarded-Host and X-Forwarded-Proto are passed on
   * (SVC_APP_TRUSTED_PROXIES, the module's `trusted_proxies`); any other
   * peer's are replaced by what the proxy saw (`forward-headers.ts`).
   * @default none
   */
  readonly trustedProxies?: CidrSet
  /** How to compare (standalone and module); unused when an API computes the diff. */
  readonly diff: DiffConfig
  /**
   * Explicit endpoint templates, for the `endpoint` and `signature` of the
   * diff log (SVC_APP_ENDPOINTS, the module's `endpoints`; docs/insights.md);
   * unused when an API computes the diff (the gate's `endpoints` apply).
   * @default none: every path gets its automatic template
   */
  readonly endpoints?: EndpointTemplates
}
