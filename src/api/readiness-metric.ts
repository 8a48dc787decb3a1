import type { Registry } from '../metrics/index.ts'
import type { ReadinessState } from './readiness.ts'

/** Sets `svc_database_ready` from one readiness answer. */
export type RecordReadiness = (state: ReadinessState) => void

/**
 * `svc_database_ready{db_name}`: 1 when the database answers and its schema
 * is this build's (what `/health/ready` answers 200 for), 0 when not.
 * Prometheus scrapes `/metrics`, not `/health/ready`, and an alert needs a
 * series to read (docs/metrics.md "Alerts"). Shutting down says nothing
 * about the database, nor do the other workers starting, so those answers
 * leave the value as it was.
 */
export function registerReadinessMetric(registry: Registry, dbName: string): RecordReadiness {
  const ready = registry
    .gauge({
      name: 'svc_database_ready',
      help: 'Whether the database answers and its schema is the one this build needs (1) or not (0), as /health/ready checks.',
      labelNames: ['db_name'],
      // Several workers: 1 only when every worker's last check said ready.
      merge: 'min',
    })
    .labels(dbName)
  return (state) => {
    if (state.ready) ready.set(1)
    else if (state.reason === 'database unreachable' || state.reason === 'schema') ready.set(0)
  }
}
