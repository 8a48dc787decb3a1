/**
 * Real host apps with the svc_gate module mounted on `/api`, next to routes
 * of their own, on 127.0.0.1: an Elysia app (`app.use(gate.plugin)`) and a
 * plain Bun.serve (`routes: { ...gate.routes }`). The host's own routes:
 *
 * | route             | answer                                                       |
 * |-------------------|--------------------------------------------------------------|
 * | `GET /`           | `host home`                                                  |
 * | `GET /health`     | `{"status":"ok"}`                                            |
 * | `GET /api-docs`   | `host docs` (shares the prefix's letters, not its segment)  |
 * | `GET /api/own`    | `host route under the prefix` (the host's route wins)       |
 * | `POST /orders`    | `{"received": <the JSON body, parsed by the host>}`          |
 * | `GET /metrics`    | `gate.metricsText()`                                         |
 */
import { Elysia } from 'elysia'
import { createLogger } from '../../../src/log/index.ts'
import { PROMETHEUS_CONTENT_TYPE } from '../../../src/metrics/index.ts'
import {
  svcGate,
  type SvcGate,
  type SvcGateMountOptions,
  type SvcGateOptions,
} from '../../../src/module/index.ts'
import type { LogRecord, StartTarget, TargetConfig } from '../../support/shadow-cases.ts'

export const HOST_KINDS = ['elysia', 'bun-serve'] as const
export type HostKind = (typeof HOST_KINDS)[number]

export const CONFIG_FORMS = ['object', 'block'] as const
export type ConfigForm = (typeof CONFIG_FORMS)[number]

export interface RunningHost {
  readonly url: string
  stop(): Promise<void>
}

const metricsResponse = (gate: SvcGate) =>
  new Response(gate.metricsText(), { headers: { 'content-type': PROMETHEUS_CONTENT_TYPE } })

/** Starts a host of `kind` with `gate` mounted. */
export function startHost(kind: HostKind, gate: SvcGate): RunningHost {
  if (kind === 'elysia') {
    const app = new Elysia()
      .get('/', () => 'host home')
      .get('/health', () => ({ status: 'ok' }))
      .get('/api-docs', () => 'host docs')
      .get('/api/own', () => 'host route under the prefix')
      .post('/orders', ({ body }) => ({ received: body }))
      .get('/metrics', () => metricsResponse(gate))
      .use(gate.plugin)
      .listen({ hostname: '127.0.0.1', port: 0 })
    return {
      url: `http://127.0.0.1:${app.server!.port}`,
      stop: async () => void (await app.stop(true)),
    }
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    routes: {
      ...gate.routes,
      '/': () => new Response('host home'),
      '/health': () => Response.json({ status: 'ok' }),
      '/api-docs': () => new Response('host docs'),
      '/api/own': () => new Response('host route under the prefix'),
      '/orders': { POST: async (request) => Response.json({ received: await request.json() }) },
      '/metrics': () => metricsResponse(gate),
    },
    fetch: () => new Response('host: not found', { status: 404 }),
  })
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) }
}

/**
 * The case's settings as an `svc_gate` block, written here rather than with
 * `printBlock`, so that the block path does not go through the object form.
 */
export function blockOf(config: TargetConfig): string {
  const lines = ['# the settings of one test case', 'svc_gate {']
  for (const [key, value] of Object.entries(config)) {
    if (value === undefined) continue
    const directive = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
    const values: unknown[] = Array.isArray(value) ? value : [value]
    lines.push(`    ${directive} ${values.map((v) => JSON.stringify(String(v))).join(' ')}`)
  }
  lines.push('}')
  return lines.join('\n')
}

export function configIn(form: ConfigForm, config: TargetConfig): string | SvcGateOptions {
  return form === 'block' ? blockOf(config) : { ...config }
}

/** A JSON logger at debug level whose lines are kept. */
export function memoryLogger() {
  const lines: string[] = []
  const logger = createLogger({
    level: 'debug',
    format: 'json',
    write: (line) => void lines.push(line),
  })
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as LogRecord) }
}

/** A gate on `/api` in a host of `kind`, configured in `form`: a target for the shared cases. */
export function moduleTarget(
  kind: HostKind,
  form: ConfigForm,
  mount: SvcGateMountOptions = {},
): StartTarget {
  return async (config) => {
    const log = memoryLogger()
    const gate = svcGate(configIn(form, config), { prefix: '/api', logger: log.logger, ...mount })
    const host = startHost(kind, gate)
    return {
      url: host.url,
      records: log.records,
      // Through the host's own metrics route.
      metricsText: async () => (await fetch(`${host.url}/metrics`)).text(),
      get inFlight() {
        return gate.inFlight
      },
      close: () => gate.close(),
      async stop() {
        await host.stop()
        await gate.close()
      },
    }
  }
}
