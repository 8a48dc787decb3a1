/**
 * The outbound HTTP clients, per upstream origin: Bun's fetch with one
 * `Bun.FetchSession` (its own keep-alive pool) for the API, an `https:`
 * upstream and live on Bun.serve; for an `http:` shadow, whose response is
 * read whole, our HTTP/1.1 client (`http1-client.ts`) with its own idle
 * list, or fetch (SVC_APP_SHADOW_CLIENT, docs/proxy.md "The shadow's
 * client"); for an `http:` live on the raw server, the same client in its
 * relay mode (`liveRelayClient`); and one semaphore of connection slots
 * that all share. How the four
 * SVC_APP_HTTP_CLIENT_* settings map (docs/proxy.md has the table):
 *
 * - MAX_CONNS_PER_HOST: enforced exactly by a semaphore per origin, held
 *   from the request until its response body is done; 0 is unbounded.
 * - MAX_IDLE_CONNS_PER_HOST: the session's `keepAlive.maxIdleSockets` and
 *   the length of our client's idle list (0: the Go runtime's default of
 *   2, docs/reference/configuration.md "Common").
 * - MAX_IDLE_CONNS: caps each session's idle sockets as well; Bun keeps all
 *   idle sockets of all sessions in one shared pool of 64 (docs/proxy.md
 *   "HTTP client"), so no setting can exceed that. Our client's idle
 *   connections across origins are bounded by it exactly, apart from
 *   fetch's.
 * - IDLE_CONN_TIMEOUT: `keepAlive.idleTimeout`, in whole seconds rounded
 *   up; Bun's socket timer moves in 4 s steps; 0 is Bun's longest (238 min).
 *   Our client closes a connection idle longer than it within a second
 *   (0: never).
 */
import { Semaphore } from '../policy/semaphore.ts'
import { DEFAULT_SHADOW_CLIENT, type HttpClientSettings } from '../policy/shadow-settings.ts'
import { SHADOW_MODE_HEADER, SHADOW_MODE_VALUE } from '../policy/forward-headers.ts'
import { createFetchClient, shadowOverFetch } from './fetch-client.ts'
import { createHttp1Client, type Http1ClientOptions } from './http1-client.ts'
import { IdleConnections } from './idle-connections.ts'
import type { UpstreamPool, UpstreamPoolOptions } from './upstream-client.ts'

/** The longest keep-alive idle timeout Bun accepts, in seconds (FetchSessionInit). */
const BUN_MAX_KEEP_ALIVE_SECONDS = 14_280
/** Go's http.DefaultMaxIdleConnsPerHost: what 0 means for MAX_IDLE_CONNS_PER_HOST. */
const DEFAULT_IDLE_PER_HOST = 2

interface Host {
  readonly session: Bun.FetchSession
  readonly slots: Semaphore
  /** Idle connections of our HTTP/1.1 client to this host. */
  readonly idle: IdleConnections
}

export function createUpstreamPool(options: UpstreamPoolOptions): UpstreamPool {
  const { settings, metrics } = options
  const hosts = new Map<string, Host>()
  const keepAlive = {
    idleTimeout: idleTimeoutSeconds(settings.idleConnTimeoutMs),
    maxIdleSockets: maxIdlePerHost(settings),
  }
  // Our client's idle connections across hosts, bounded by MAX_IDLE_CONNS (0: not bounded).
  const idleBudget = { count: 0, max: settings.maxIdleConns }

  function host(origin: string): Host {
    let found = hosts.get(origin)
    if (!found) {
      found = {
        session: new Bun.FetchSession({ keepAlive }),
        slots: new Semaphore(settings.maxConnsPerHost),
        idle: new IdleConnections(keepAlive.maxIdleSockets, idleBudget, settings.idleConnTimeoutMs),
      }
      hosts.set(origin, found)
    }
    return found
  }

  /** Our HTTP/1.1 client to an `http:` origin, on the host's connection slots and idle list. */
  function http1Client(target: 'live' | 'shadow', baseUrl: string, url: URL, options: Pick<Http1ClientOptions, 'setFields' | 'headTimeoutMs'>) {
    const { slots, idle } = host(url.origin)
    return createHttp1Client({ target, baseUrl: baseUrl.replace(/\/+$/, ''), slots, idle, recorder: metrics?.forUpstream(target, url), ...options })
  }

  const pool: UpstreamPool = {
    shadowClient(baseUrl, headTimeoutMs = 0) {
      const url = new URL(baseUrl)
      if (url.protocol !== 'http:' || (settings.shadowClient ?? DEFAULT_SHADOW_CLIENT) === 'fetch') {
        return shadowOverFetch(pool.client('shadow', baseUrl), headTimeoutMs)
      }
      return http1Client('shadow', baseUrl, url, { setFields: { [SHADOW_MODE_HEADER]: SHADOW_MODE_VALUE }, headTimeoutMs })
    },

    liveRelayClient(baseUrl, headTimeoutMs) {
      const url = new URL(baseUrl)
      if (url.protocol !== 'http:') return undefined
      return http1Client('live', baseUrl, url, { headTimeoutMs })
    },

    client(target, baseUrl) {
      const url = new URL(baseUrl)
      const { session, slots } = host(url.origin)
      return createFetchClient({ target, baseUrl, session, slots, recorder: metrics?.forUpstream(target, url) })
    },
    close() {
      for (const { session, idle } of hosts.values()) {
        session.close()
        idle.closeAll()
      }
    },
  }
  return pool
}

function idleTimeoutSeconds(ms: number): number {
  if (ms <= 0) return BUN_MAX_KEEP_ALIVE_SECONDS
  return Math.min(BUN_MAX_KEEP_ALIVE_SECONDS, Math.ceil(ms / 1000))
}

function maxIdlePerHost(settings: HttpClientSettings): number {
  const perHost = settings.maxIdleConnsPerHost === 0 ? DEFAULT_IDLE_PER_HOST : settings.maxIdleConnsPerHost
  return settings.maxIdleConns === 0 ? perHost : Math.min(perHost, settings.maxIdleConns)
}
