// The traffic proxy and the shadowing core it shares with the svc_gate module; the layers are in docs/proxy.md "Layout".

export {
  createShadowHandler,
  type ForwardContext,
  type ShadowHandler,
  type ShadowHandlerDeps,
} from './pipeline/shadow-handler.ts'
export { pathAndQueryOf } from '../net/request-target.ts'
export { DEFAULT_HTTP_CLIENT, type HttpClientSettings, type ShadowSettings } from './policy/shadow-settings.ts'
export { createProxyMetrics, type ProxyMetrics } from './pipeline/proxy-metrics.ts'
export { createUpstreamPool } from './upstream/upstream-pool.ts'
export type { UpstreamClient, UpstreamPool } from './upstream/upstream-client.ts'
export { createDiffLogSink, DIFF_LOG_MESSAGE, type DiffLogSinkOptions } from './sinks/diff-log-sink.ts'
export type { Capture, CapturedExchange, CaptureSink, ShadowNotAttempted, SinkOutcome } from './sinks/capture-sink.ts'
export type { DrainResult } from './pipeline/background-tasks.ts'
export { compileShadowRules, ShadowRuleError, BASE_SHADOW_RULES, type ShadowRules } from './policy/shadow-rules.ts'
export { createSampler, type RandomSource, type Sampler } from './policy/sampler.ts'
export { CircuitBreaker, BreakerOpenError, BREAKER_STATES, type BreakerState } from './policy/circuit-breaker.ts'
export { HOP_BY_HOP_HEADERS, SHADOW_MODE_HEADER } from './policy/forward-headers.ts'
export { createProxy, startProxy, type CreateProxyOptions, type RunningProxy } from './start-proxy.ts'
export { Readiness, startAdminServer, type AdminServer } from './admin-server.ts'
