/**
 * The module's metrics: the core's own (docs/reference/metrics.md "Metrics",
 * `gate=""`), registered once per registry. Several gates given the same
 * registry share one set, as `createProxyMetrics` asks, and are told apart by
 * nothing but their sum: give each gate a registry of its own to read them
 * separately.
 */
import type { Registry } from '../metrics/index.ts'
import { createProxyMetrics, type ProxyMetrics } from '../proxy/pipeline/proxy-metrics.ts'
import { ModuleConfigError } from './module-config-error.ts'

const byRegistry = new WeakMap<Registry, ProxyMetrics>()

/** The core's metrics on `registry`, registered on first use. */
export function moduleMetrics(registry: Registry): ProxyMetrics {
  let metrics = byRegistry.get(registry)
  if (metrics === undefined) {
    try {
      metrics = createProxyMetrics(registry)
    } catch (error) {
      // A host registry with its own http_server_request_duration_seconds, most likely.
      const detail =
        `${error instanceof Error ? error.message : String(error)}; ` +
        'leave out the registry option (the module then keeps a registry of its own) and serve gate.metricsText() on a route of its own'
      throw new ModuleConfigError(
        'registry',
        'a registry without these metric names',
        'a clash',
        undefined,
        detail,
      )
    }
    byRegistry.set(registry, metrics)
  }
  return metrics
}
