import type { ApiConfig } from '../config/api-config.ts'
import type { Logger } from '../log/index.ts'
import type { ComparisonMetrics, NoiseCheckMetrics, Registry } from '../metrics/index.ts'
import type { Database } from '../store/database.ts'
import type { GateStore } from '../store/gate-store.ts'
import type { InsightsStore } from '../store/insights-store.ts'
import type { RequestExporter } from '../store/request-export.ts'
import type { RequestStore } from '../store/request-store.ts'
import type { StatsStore } from '../store/stats-store.ts'
import type { SuggestionsStore } from '../store/suggestions-store.ts'
import type { PreviewGuard } from '../rediff/preview-guard.ts'
import type { RediffJobs } from '../rediff/rediff-jobs.ts'
import type { WorkerLink } from '../workers/worker-link.ts'
import type { GateSettingsCache } from './gate-settings-cache.ts'
import type { IngestBacklog } from './ingest-backlog.ts'
import type { SchemaReadiness } from './schema-readiness.ts'

/** Everything the routes need, built once at startup and passed in. */
export interface ApiContext {
  readonly config: ApiConfig
  readonly logger: Logger
  readonly db: Database
  readonly gates: GateStore
  readonly requests: RequestStore
  /** exportRequests: a gate's captures page by page. */
  readonly exports: RequestExporter
  /** The insight reads: endpoints, signatures, fields. */
  readonly insights: InsightsStore
  /** listSuggestions: proposed ignored_fields entries. */
  readonly suggestions: SuggestionsStore
  /** previewDiffConfig: one preview per gate at a time. */
  readonly previews: PreviewGuard
  /** Re-diff jobs: made, run, taken over. */
  readonly jobs: RediffJobs
  readonly stats: StatsStore
  /** Gate settings for ingest, reused for a second. */
  readonly gateSettings: GateSettingsCache
  /** Captures accepted and not yet answered, bounded (503 above the bound). */
  readonly ingestBacklog: IngestBacklog
  readonly registry: Registry
  readonly comparisons: ComparisonMetrics
  /** svc_noise_checks_total: the noise checks of createRequest's live_repeat_response. */
  readonly noiseChecks: NoiseCheckMetrics
  /** Whether the database is migrated, for readiness. */
  readonly schema: SchemaReadiness
  /** Turns false when shutdown begins, so readiness answers 503 at once. */
  readonly lifecycle: { accepting: boolean }
  /** The link to the primary when this process is one of several workers (docs/proxy.md "Workers"). */
  readonly workers?: WorkerLink
}
