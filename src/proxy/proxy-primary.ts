/**
 * The proxy with SVC_APP_WORKERS above 1 (docs/proxy.md "Workers"): this
 * process serves the admin port, whose readiness and metrics cover every
 * worker; the workers serve SVC_APP_PORT together.
 */
import type { ProxyConfig } from '../config/proxy-config.ts'
import type { Logger } from '../log/index.ts'
import { listenOr } from '../net/listen.ts'
import { runPrimary, type Primary } from '../workers/run-primary.ts'
import { checkPortFree } from '../workers/shared-port.ts'
import { startAdminServer, type ReadinessView } from './admin-server.ts'

/** Beyond the workers' own drains (write timeout, then the shadow timeout), time to exit. */
const DRAIN_MARGIN_MS = 5_000

export function startProxyPrimary(config: ProxyConfig, logger: Logger): void {
  const hostname = '0.0.0.0'
  checkPortFree('SVC_APP_PORT', config.port, hostname)
  let primary: Primary | undefined
  const readiness: ReadinessView = {
    get state() {
      return primary?.state ?? 'starting'
    },
    get ready() {
      return primary?.state === 'ready'
    },
  }
  const admin = listenOr('SVC_APP_ADMIN_PORT', config.adminPort, () =>
    startAdminServer({
      port: config.adminPort,
      hostname,
      readiness,
      metrics: config.metricsEnabled ? () => primary!.metricsText() : undefined,
    }),
  )
  primary = runPrimary({
    component: 'proxy',
    workers: config.workers,
    logger,
    drainBoundMs: config.writeTimeoutMs + config.shadow.shadowTimeoutMs + DRAIN_MARGIN_MS,
    attributes: { url: `http://${hostname}:${config.port}`, admin: `http://${hostname}:${admin.port}` },
    beforeExit: () => admin.stop(),
  })
}
