import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { createApi } from '../api/start-api.ts'
import { loadApiConfig } from '../config/api-config.ts'
import { loadHubConfig } from '../config/hub-config.ts'
import { ConfigError } from '../config/config-error.ts'
import { isAddressInUse } from '../net/listen.ts'
import type { Environment } from '../config/environment.ts'
import { loadProxyConfig } from '../config/proxy-config.ts'
import { createLogger } from '../log/index.ts'
import { createProxy } from '../proxy/start-proxy.ts'
import { DEFAULT_DIST_DIR } from '../hub-server/build-hub.ts'
import { startHubServer } from '../hub-server/hub-server.ts'
import { openDatabase } from '../store/database.ts'
import { migrate } from '../store/migrator.ts'
import { DEMO_GATE, ensureDemoGate } from './demo-gate.ts'
import { startSampleService } from './sample-service.ts'
import { startTrafficGenerator } from './traffic-generator.ts'

/**
 * The demo's fixed ports: the components' default ports, and two for the sample
 * services.
 */
export const DEMO_PORTS = { api: 8090, proxy: 8080, admin: 8081, hub: 8070, live: 9001, shadow: 9002 } as const

const DATA_DIR = '.svc-demo'

/** The share of the demo's shadowed GETs whose live answer is checked for noise. */
export const DEMO_NOISE_SAMPLE_RATE = 0.5

/**
 * The demo's ports are fixed, so a second demo (or anything else on them)
 * is said in one line before anything starts, rather than as a stack trace
 * halfway through.
 */
function ensurePortsFree(): void {
  for (const [name, port] of Object.entries(DEMO_PORTS)) {
    try {
      Bun.listen({ hostname: '127.0.0.1', port, socket: { data() {} } }).stop(true)
    } catch (error) {
      if (!isAddressInUse(error)) throw error
      throw new ConfigError('demo', undefined, `port ${port} (${name}) is already in use; is a demo already running? Stop it first`)
    }
  }
}

/**
 * `bun run demo [-- --reset]`: everything on one box, in one process, on
 * the embedded database in ./.svc-demo (kept across restarts). Ctrl-C stops
 * it all. Binds 127.0.0.1 only: the hub hands out the demo key.
 */
export async function startDemo(_env: Environment, argv: readonly string[] = []): Promise<void> {
  // First: a running demo's data must not be wiped by a second one's --reset.
  ensurePortsFree()
  const dataDir = resolve(DATA_DIR)
  if (argv.includes('--reset') && existsSync(dataDir)) {
    rmSync(dataDir, { recursive: true, force: true })
    console.log(`demo: wiped ${dataDir}`)
  }
  mkdirSync(dataDir, { recursive: true })
  const apiKey = demoKey(dataDir)
  const logger = createLogger({ level: 'warn', format: 'text' })

  const live = startSampleService('live', DEMO_PORTS.live)
  const shadow = startSampleService('shadow', DEMO_PORTS.shadow)

  const databaseUrl = `pglite://${join(dataDir, 'db')}`
  const database = await openDatabase(databaseUrl, { max: 4, min: 1, idleTimeoutMs: 300_000, maxLifetimeMs: 3_600_000 })
  await migrate(database.sql)
  const hubOrigins = [`http://127.0.0.1:${DEMO_PORTS.hub}`, `http://localhost:${DEMO_PORTS.hub}`]
  // The hub hands out the key: a page rebound to 127.0.0.1 gets a 421 (docs/hub.md).
  const allowedHosts = '127.0.0.1,localhost'
  const api = await createApi(
    loadApiConfig({
      SVC_APP_DATABASE_URL: databaseUrl,
      SVC_APP_API_KEY: apiKey,
      SVC_APP_PORT: String(DEMO_PORTS.api),
      SVC_APP_CORS_ORIGINS: hubOrigins.join(','),
      SVC_APP_ALLOWED_HOSTS: allowedHosts,
      // The demo's proxy reports every capture from 127.0.0.1; a proxy's
      // address belongs in the exemption (README "Scaling out"), and on a
      // one-box demo every client is that address.
      SVC_APP_RATE_LIMIT_EXEMPT: '127.0.0.1,::1',
      SVC_APP_LOG_LEVEL: 'warn',
    }),
    { logger, database, hostname: '127.0.0.1' },
  )
  const gate = await ensureDemoGate(api.context.gates, live.url, shadow.url)

  const proxy = await createProxy(
    loadProxyConfig({
      SVC_APP_API_URL: api.url,
      SVC_APP_GATE_ID: gate.id,
      SVC_APP_API_KEY: apiKey,
      SVC_APP_PORT: String(DEMO_PORTS.proxy),
      SVC_APP_ADMIN_PORT: String(DEMO_PORTS.admin),
      // Live asked again for half the GETs: at the traffic's ~4 requests a
      // second, each endpoint has the noise checks a classification needs
      // (docs/insights.md "Noise") within about a minute.
      SVC_APP_NOISE_SAMPLE_RATE: String(DEMO_NOISE_SAMPLE_RATE),
      SVC_APP_LOG_LEVEL: 'warn',
    }),
    { logger, hostname: '127.0.0.1' },
  )
  const hubConfig = loadHubConfig({ SVC_APP_API_BASE_URL: api.url, SVC_APP_API_KEY: apiKey, SVC_APP_ALLOWED_HOSTS: allowedHosts })
  const hub = await startHubServer(
    { port: DEMO_PORTS.hub, hostname: '127.0.0.1', apiBaseUrl: api.url, apiKey, distDir: DEFAULT_DIST_DIR, allowedHosts: hubConfig.allowedHosts },
    logger,
  )
  const traffic = startTrafficGenerator(proxy.url)

  console.log(
    [
      '',
      'svc-shadow demo is running (Ctrl-C stops everything; data stays in ./.svc-demo, `bun run demo -- --reset` wipes it)',
      '',
      `  hub         ${hub.url.replace('0.0.0.0', '127.0.0.1')}/gates/${gate.id}`,
      `  proxy       ${proxy.url}   (try: curl ${proxy.url}/api/products/2)`,
      `  proxy admin http://127.0.0.1:${DEMO_PORTS.admin}/metrics`,
      `  API         ${api.url}`,
      `  Swagger UI  ${api.url}/swagger`,
      `  API key     ${apiKey}`,
      `  live        ${live.url}   shadow ${shadow.url}   gate "${DEMO_GATE.name}"`,
      '',
      'A gentle traffic generator sends ~4 requests/s through the proxy; every capture differs at first: a timestamp and a',
      'request id in each body. Within a minute the hub suggests ignoring them (Differences, "Suggested ignore rules").',
      '',
    ].join('\n'),
  )

  let stopping = false
  const shutdown = async () => {
    if (stopping) return
    stopping = true
    console.log('demo: stopping')
    traffic.stop()
    await proxy.stop()
    await hub.stop()
    await api.stop()
    await database.close()
    await Promise.all([live.stop(), shadow.stop()])
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown())
  process.on('SIGTERM', () => void shutdown())
}

/** A key made once per data directory, so a restarted demo keeps its key. */
function demoKey(dataDir: string): string {
  const file = join(dataDir, 'demo-key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  const key = `demo-${crypto.randomUUID()}`
  writeFileSync(file, key + '\n', { mode: 0o600 })
  return key
}
