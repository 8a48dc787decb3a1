// Endpoints and diff signatures (docs/insights.md): pure code, no I/O.

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

