import type { Registry } from '../metrics/index.ts'
import type { Database } from '../store/database.ts'

/**
 * Database pool series (docs/reference/metrics.md "API": labelled db_name),
 * named after OTel's db.client.connection.* metrics, read at scrape time.
 */
export function registerPoolMetrics(registry: Registry, db: Database): void {
  const count = registry.gauge({
    name: 'db_client_connection_count',
    help: 'Connections in the database pool, by state (idle, used).',
    labelNames: ['db_name', 'state'],
  })
  const max = registry.gauge({
    name: 'db_client_connection_max',
    help: 'The most connections the database pool may open.',
    labelNames: ['db_name'],
  })
  registry.addCollector(() => {
    const stats = db.poolStats()
    count.labels(db.dbName, 'idle').set(stats.idle)
    count.labels(db.dbName, 'used').set(stats.active)
    max.labels(db.dbName).set(stats.max)
  })
}
