import { HOP_BY_HOP_HEADERS, REDACTED, type HeaderMap } from '../diff/index.ts'
import type { StoredCapture } from './stored-capture.ts'

/** Why a stored capture is not sent, defined once for the tally, the summary and docs/ci.md. */
export const SKIP_REASONS = ['method', 'live_failed', 'redacted'] as const
export type SkipReason = (typeof SKIP_REASONS)[number]

/**
 * The methods replayed unless `--method` says otherwise: the proxy's base
 * shadow rules (docs/proxy.md "Which requests are shadowed"), the methods
 * that are safe to send twice.
 */
export const SAFE_METHODS = ['GET', 'HEAD', 'OPTIONS'] as const

export interface ReplayPolicy {
  /** Upper-cased methods to send; any other is skipped as `method`. */
  readonly methods: ReadonlySet<string>
  /** `--header` values by lower-cased name: set on every request, replacing what was stored. */
  readonly headers: ReadonlyMap<string, { readonly name: string; readonly value: string }>
  /** `--allow-redacted`: send captures with redacted values anyway (the redacted headers left out). */
  readonly allowRedacted: boolean
}

/** What the candidate is sent: the stored request, minus what belonged to the original connection. */
export interface CandidateRequest {
  readonly method: string
  /** Path and query, to append to the candidate's base URL. */
  readonly target: string
  readonly headers: Array<[string, string]>
  readonly body: Uint8Array<ArrayBuffer> | undefined
}

export type ReplayPlan = { readonly kind: 'send'; readonly request: CandidateRequest } | { readonly kind: 'skip'; readonly reason: SkipReason }

/**
 * The shadow marker the proxy puts on shadow requests (README "Proxy"): a
 * candidate that keeps its side effects off for shadow traffic keeps them
 * off for a replay too.
 */
export const REPLAY_MODE_HEADER: readonly [string, string] = ['X-Svc-Mode', 'shadow']

/**
 * Left out of a replayed request: hop-by-hop fields (RFC 9110 §7.6.1),
 * what the client computes for its own connection (Host, Content-Length),
 * and a client's own X-Svc-Mode, replaced by the marker.
 */
const NOT_SENT = new Set([...HOP_BY_HOP_HEADERS.map((name) => name.toLowerCase()), 'host', 'content-length', 'expect', 'x-svc-mode'])

const REDACTED_BYTES = new TextEncoder().encode(REDACTED)

/**
 * Whether, and what, to send for a stored capture (docs/ci.md "Replay"):
 * - a method outside `policy.methods` is skipped as `method`;
 * - a capture whose live failed (status 0) is skipped as `live_failed`:
 *   there is no answer of live's to compare the candidate's with, and the
 *   verdict would count it nowhere (docs/ci.md "Checks");
 * - a request whose stored headers (other than those `--header` sets)
 *   or body hold a redacted value is skipped as `redacted`: the original
 *   value is gone, and sending `[REDACTED]` in its place tests nothing
 *   but the candidate's refusal; `--allow-redacted` sends it anyway, the
 *   redacted headers left out.
 */
export function planReplay(capture: StoredCapture, body: Uint8Array<ArrayBuffer>, policy: ReplayPolicy): ReplayPlan {
  const method = capture.method.toUpperCase()
  if (!policy.methods.has(method)) return { kind: 'skip', reason: 'method' }
  if (capture.live_response.status_code === 0) return { kind: 'skip', reason: 'live_failed' }
  const headers: Array<[string, string]> = []
  let redacted = containsBytes(body, REDACTED_BYTES)
  for (const [name, values] of Object.entries(capture.headers as HeaderMap)) {
    const lower = name.toLowerCase()
    if (NOT_SENT.has(lower) || policy.headers.has(lower) || !Array.isArray(values)) continue
    for (const value of values) {
      if (value === REDACTED) redacted = true
      else headers.push([name, value])
    }
  }
  if (redacted && !policy.allowRedacted) return { kind: 'skip', reason: 'redacted' }
  for (const { name, value } of policy.headers.values()) headers.push([name, value])
  headers.push([...REPLAY_MODE_HEADER])
  const query = capture.raw_query === undefined || capture.raw_query === '' ? '' : `?${capture.raw_query}`
  const sendsBody = body.byteLength > 0 && method !== 'GET' && method !== 'HEAD'
  return { kind: 'send', request: { method, target: `${capture.path}${query}`, headers, body: sendsBody ? body : undefined } }
}

function containsBytes(haystack: Uint8Array, needle: Uint8Array): boolean {
  if (haystack.byteLength < needle.byteLength) return false
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle) !== -1
}
