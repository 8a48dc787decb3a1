/**
 * The API with SVC_APP_WORKERS above 1 (docs/proxy.md "Workers"): this
 * process serves nothing itself; the workers serve SVC_APP_PORT together,
 * and the one a scrape lands on answers `/metrics` with every worker's
 * merged by this process. The first worker runs the retention cleanup.
 */
import type { ApiConfig } from '../config/api-config.ts'
import type { Logger } from '../log/index.ts'
import { runPrimary } from '../workers/run-primary.ts'
import { checkPortFree } from '../workers/shared-port.ts'

/** Beyond a worker's own drain (requests in flight, bounded by the write timeout), time to close the pool and exit. */
const DRAIN_MARGIN_MS = 10_000

export function startApiPrimary(config: ApiConfig, logger: Logger): void {
  const hostname = '0.0.0.0'
  checkPortFree('SVC_APP_PORT', config.port, hostname)
  runPrimary({
    component: 'api',
    workers: config.workers,
    logger,
    drainBoundMs: config.writeTimeoutMs + DRAIN_MARGIN_MS,
    attributes: { url: `http://127.0.0.1:${config.port}` },
  })
}
