// The verdict on a gate's captures (docs/ci.md): pure code, no I/O.
export {
  DEFAULT_THRESHOLDS,
  invalidThreshold,
  MAX_MIN_REQUESTS,
  resolveThresholds,
  THRESHOLD_NAMES,
  THRESHOLD_RULES,
  type ThresholdName,
  type ThresholdOverrides,
  type VerdictThresholds,
} from './verdict-thresholds.ts'
export {
  CHECK_NAMES,
  evaluateVerdict,
  GATE_SCOPE,
  LATENCY_FLOOR_MS,
  failsLatencyCheck,
  latencyRatio,
  VERDICTS,
  type CheckName,
  type EndpointLatency,
  type Verdict,
  type VerdictCheck,
  type VerdictFacts,
  type VerdictOptions,
  type VerdictOutcome,
} from './evaluate-verdict.ts'
export { noiseOnlyDiffs, type DiffSignatureCount, type FieldClass } from './noise-only-diffs.ts'
export { ERROR_EXIT_CODE, EXIT_CODES } from './exit-code.ts'
