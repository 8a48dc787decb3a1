// The diff engine and redaction (docs/diff.md): pure code, no I/O.

export type { HeaderMap, CapturedRequest, CapturedResponse } from './capture.ts'
export { DEFAULT_DIFF_CONFIG, type DiffConfig } from './diff-config.ts'
export { PATCH_OP_KINDS, type PatchOp } from './patch-op.ts'
export { COMPARISON_KINDS, comparisonOf, hasDiff, type Comparison } from './comparison.ts'

export {
  compileCaptureOptions,
  CompiledCaptureOptions,
  ensureCompiled,
  MAX_DECODED_BYTES,
  type CaptureOptions,
} from './capture-options.ts'
export { processCapture, type CaptureInput, type ProcessedCapture } from './process-capture.ts'
export { compareResponses, failureCause } from './compare-responses.ts'
export { compareDocuments } from './compare-documents.ts'
export { compileDiffConfig, CompiledDiffConfig } from './compiled-diff-config.ts'
export { formatPatch } from './format-patch.ts'

export { compileRedaction, DEFAULT_REDACTED_FIELDS, REDACTED, Redaction } from './redaction.ts'
export {
  FIELD_PATH_ROOTS,
  FieldPathError,
  fieldPathProblem,
  parseFieldPath,
  type FieldPath,
  type FieldPathRoot,
} from './field-path.ts'
export { FieldMatcher, MatchState } from './field-matcher.ts'
export { PathFilter } from './path-filter.ts'

export { escapePointerSegment, formatPointer, parsePointer } from './pointer.ts'
export {
  canonicalHeaderName,
  comparedHeaders,
  headerValues,
  HOP_BY_HOP_HEADERS,
  VOLATILE_HEADERS,
} from './headers.ts'
export { charsetOf, decodeContent, decodeText, type ContentDecoding } from './body-decoding.ts'
export { deepEqual } from './deep-equal.ts'
export { MAX_COMPARE_DEPTH } from './depth-limit.ts'
