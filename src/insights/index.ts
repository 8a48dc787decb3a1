// Endpoints and diff signatures (docs/insights.md): pure code, no I/O.
// The hub imports signature-summary.ts directly: this index also pulls in
// node:crypto (signature-id.ts), which has no place in a browser bundle.

export { isIdentifierLike } from './identifier-like.ts'
export { decodedSegment, routeSegments } from './route-path.ts'
export { automaticTemplate, ID_PLACEHOLDER } from './automatic-template.ts'
export { EndpointTemplateError } from './endpoint-template-error.ts'
export {
  MAX_TEMPLATE_LENGTH,
  matchesTemplate,
  parseEndpointTemplate,
  type EndpointTemplate,
  type TemplateSegment,
} from './endpoint-template.ts'
export {
  EndpointTemplates,
  endpointTemplatesProblem,
  MAX_ENDPOINT_TEMPLATES,
} from './endpoint-templates.ts'
export {
  endpointOf,
  MAX_TEMPLATES_PER_GATE,
  OTHER_TEMPLATE,
  templateWithinCap,
  type Endpoint,
  type KnownSet,
} from './endpoint.ts'

export { ERROR_CLASSES, errorClassOf, type ErrorClass } from './error-class.ts'
export { generalisedPath, INDEX_PLACEHOLDER, KEY_PLACEHOLDER } from './signature-path.ts'
export {
  MAX_SIGNATURE_OPS,
  SIGNATURE_KINDS,
  type DiffSignature,
  type ErrorSignature,
  type Signature,
  type SignatureContent,
  type SignatureKind,
  type SignatureOp,
} from './signature.ts'
export { canonicalSignature, SIGNATURE_ID_LENGTH, signatureId } from './signature-id.ts'
export { DiffSignatureMemo } from './diff-signature-memo.ts'
export {
  diffSignature,
  errorSignature,
  failureClassOf,
  signatureOf,
  type ResponseOutcome,
  type SignatureSubject,
} from './signature-of.ts'
export { MAX_SIGNATURES_PER_GATE, overflowSignature, signatureWithinCap } from './signature-cap.ts'
export { SUMMARY_PATHS, signatureSummary, type SummarySubject } from './signature-summary.ts'

export { wilsonInterval, type Interval } from './wilson-interval.ts'
export {
  classifyField,
  FIELD_CLASSIFICATIONS,
  NOISE_RULE,
  type FieldClassification,
  type FieldEvidence,
  type NoiseRule,
} from './noise-classification.ts'
export { VALUE_SHAPES, valueShape, type ValueShape, type VolatileShape } from './value-shape.ts'
export { fieldPathOf } from './field-path-of.ts'
export {
  fieldSuggestions,
  mayBeVolatile,
  SUGGESTION_REASONS,
  VOLATILE_RULE,
  type FieldRow,
  type Suggestion,
  type SuggestionEvidence,
  type SuggestionInput,
  type SuggestionReason,
  type VolatileRule,
} from './field-suggestions.ts'
export { ignoredBy } from './ignored-by.ts'
