/**
 * The proxy under test, in-process on 127.0.0.1, with its log lines kept
 * and its metrics read from the real admin server.
 */
import { loadProxyConfig } from '../../../src/config/proxy-config.ts'
import { createLogger } from '../../../src/log/index.ts'
import { SKIP_REASONS, type SkipReason } from '../../../src/metrics/index.ts'
import { createProxy, type RunningProxy } from '../../../src/proxy/start-proxy.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { waitFor } from '../../support/upstreams.ts'

export interface LogRecord {
  readonly msg: string
  readonly level: string
  readonly [key: string]: unknown
}

export interface ProxyUnderTest {
  readonly proxy: RunningProxy
  readonly url: string
  readonly adminUrl: string
  readonly logs: string[]
  /** The JSON log records, parsed. */
  records(): LogRecord[]
  /** Waits until a record with this message (and matching `where`) is logged. */
  waitForRecord(msg: string, where?: (record: LogRecord) => boolean, timeoutMs?: number): Promise<LogRecord>
  metricsText(): Promise<string>
  /** Sum of every sample of `name` whose labels include `labels`. */
  metric(name: string, labels?: Record<string, string>): Promise<number>
  /** Received (server histogram count), compared + reported, and skipped by reason. */
  accounting(): Promise<Accounting>
  /** Waits until every request received is accounted for (no comparison in flight). */
  settled(timeoutMs?: number): Promise<Accounting>
  stop(): Promise<void>
}

export interface Accounting {
  readonly received: number
  readonly compared: number
  readonly reported: number
  readonly skipped: Readonly<Record<SkipReason, number>>
  readonly skippedTotal: number
}

/**
 * The proxy's server for every proxy of this run (SVC_APP_PROXY_SERVER):
 * the default, `raw`; `bun-server-suite.test.ts` runs these suites again
 * with SVC_TEST_PROXY_SERVER=bun. A test that sets the variable itself keeps its own.
 */
export const proxyServerUnderTest = process.env.SVC_TEST_PROXY_SERVER ?? 'raw'
const PROXY_SERVER_UNDER_TEST: Record<string, string> = { SVC_APP_PROXY_SERVER: proxyServerUnderTest }

/** Starts a proxy from SVC_APP_* variables; ports default to free ones, logs to JSON at debug. */
export async function startTestProxy(env: Record<string, string>): Promise<ProxyUnderTest> {
  const loaded = loadProxyConfig({
    SVC_APP_LOG_LEVEL: 'debug',
    SVC_APP_LOG_FORMAT: 'json',
    ...PROXY_SERVER_UNDER_TEST,
    ...env,
  })
  // Free ports, chosen by the kernel: the variables themselves refuse 0.
  const config = {
    ...loaded,
    port: 'SVC_APP_PORT' in env ? loaded.port : 0,
    adminPort: 'SVC_APP_ADMIN_PORT' in env ? loaded.adminPort : 0,
  }
  const logs: string[] = []
  const logger = createLogger({ level: config.logLevel, format: 'json', write: (line) => void logs.push(line) })
  const proxy = await createProxy(config, { hostname: '127.0.0.1', logger, warningIntervalMs: 60_000 })
  const adminUrl = proxy.admin!.url
  const records = () => logs.map((line) => JSON.parse(line) as LogRecord)
  const metricsText = async () => (await fetch(`${adminUrl}/metrics`)).text()
  const metric = async (name: string, labels: Record<string, string> = {}) => sumSamples(await metricsText(), name, labels)
  const accounting = async (): Promise<Accounting> => {
    const text = await metricsText()
    const skipped = {} as Record<SkipReason, number>
    for (const reason of SKIP_REASONS) skipped[reason] = sumSamples(text, 'svc_comparisons_skipped_total', { reason })
    return {
      received: sumSamples(text, 'http_server_request_duration_seconds_count'),
      compared: sumSamples(text, 'svc_responses_compared_total'),
      reported: sumSamples(text, 'svc_captures_reported_total'),
      skipped,
      skippedTotal: Object.values(skipped).reduce((a, b) => a + b, 0),
    }
  }
  return {
    proxy,
    url: proxy.url,
    adminUrl,
    logs,
    records,
    waitForRecord: (msg, where = () => true, timeoutMs = 5000) =>
      waitFor(() => records().find((r) => r.msg === msg && where(r)), timeoutMs, `log record "${msg}"`),
    metricsText,
    metric,
    accounting,
    settled: (timeoutMs = 10_000) =>
      waitFor(
        async () => {
          if (proxy.handler.inFlight > 0) return undefined
          const counts = await accounting()
          return counts.compared + counts.reported + counts.skippedTotal === counts.received ? counts : undefined
        },
        timeoutMs,
        'every request to be accounted for',
      ),
    stop: () => proxy.stop(),
  }
}

/** The API-mode environment for a (scripted) API's gate, its key a valid one. */
export function apiModeEnv(api: { url: string; gateId: string }, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_APP_API_URL: api.url, SVC_APP_GATE_ID: api.gateId, SVC_APP_API_KEY: 'proxy-key-0123456789', ...extra }
}

/** The standalone environment for a live/shadow pair. */
export function standaloneEnv(liveUrl: string, shadowUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_APP_LIVE_URL: liveUrl, SVC_APP_SHADOW_URL: shadowUrl, ...extra }
}
