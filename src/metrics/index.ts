export { DIFF_OPERATION_BUCKETS, HTTP_DURATION_BUCKETS } from './buckets.ts'
export type { LabelValue } from './child-cache.ts'
export {
  createComparisonMetrics,
  type ComparisonMetrics,
  type GateComparisons,
} from './comparison-metrics.ts'
export { Counter, CounterChild, type CounterOptions } from './counter.ts'
export { EventLoopLag } from './event-loop-lag.ts'
export {
  escapeHelp,
  escapeLabelValue,
  formatSampleValue,
  PROMETHEUS_CONTENT_TYPE,
} from './exposition.ts'
export { Gauge, GaugeChild, type GaugeOptions } from './gauge.ts'
export { Histogram, HistogramChild, type HistogramOptions } from './histogram.ts'
export {
  createHttpClientMetrics,
  type HttpClientMetrics,
  type UpstreamRecorder,
} from './http-client-metrics.ts'
export {
  createHttpServerMetrics,
  type HttpServerMetrics,
  type HttpServerMetricsOptions,
} from './http-server-metrics.ts'
export {
  COMPARISON_RESULTS,
  FAILED_SIDES,
  failedSideOf,
  HTTP_METHODS,
  httpMethodLabel,
  SKIP_REASONS,
  statusCodeLabel,
  SVC_TARGETS,
  svcTargetLabel,
  type ComparisonResult,
  type FailedSide,
  type HttpMethod,
  type SkipReason,
  type SvcTarget,
} from './label-values.ts'
export {
  NOISE_CHECK_RESULTS,
  NOISE_SKIP_REASONS,
  type NoiseCheckResult,
  type NoiseSkipReason,
} from './label-values.ts'
export {
  createNoiseCheckMetrics,
  createNoiseSkipMetrics,
  type GateNoiseChecks,
  type GateNoiseSkips,
  type NoiseCheckMetrics,
  type NoiseSkipMetrics,
} from './noise-metrics.ts'
export {
  Metric,
  METRIC_TYPES,
  type LabelNames,
  type LabelSet,
  type LabelValues,
  type MetricOptions,
  type MetricType,
} from './metric.ts'
export {
  registerProcessMetrics,
  type ProcessMetricsHandle,
  type ProcessMetricsOptions,
} from './process-metrics.ts'
export { Registry, type RegistryOptions } from './registry.ts'
export { mergeSnapshots, monotonicPart } from './merge-snapshots.ts'
export { GAUGE_MERGES, type FamilySnapshot, type GaugeMerge, type MetricsSnapshot } from './metrics-snapshot.ts'
export { renderSnapshot } from './render-snapshot.ts'
export { createSkipMetrics, type GateSkips, type SkipMetrics } from './skip-metrics.ts'
