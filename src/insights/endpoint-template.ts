import { EndpointTemplateError } from './endpoint-template-error.ts'

/**
 * Explicit endpoint templates (docs/insights.md "Explicit templates"):
 * `/v2/products/{sku}/price`. A template is a path: `{name}` fills a whole
 * segment and matches any non-empty one; a last segment `*` (written `/*`)
 * matches the rest of the path, at least one segment, possibly empty (so
 * `/static/*` matches `/static/` and `/static/a/b.js`, not `/static`).
 * Every other segment is literal and compared, case-sensitively, with the
 * path's segment once both are percent-decoded. Paths are cut as in
 * route-path.ts (doubled slashes merged, trailing slash kept), so a
 * template never holds an empty segment except a trailing slash.
 */
export interface EndpointTemplate {
  /** The template as written; what a matching capture's endpoint shows. */
  readonly source: string
  readonly segments: readonly TemplateSegment[]
  /** Whether the template ends with `/*`. */
  readonly rest: boolean
}

export type TemplateSegment =
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'param'; readonly name: string }

/** Longer templates are refused: a route is never that long, and they are stored with the gate. */
export const MAX_TEMPLATE_LENGTH = 2048

/** Parses one template; throws EndpointTemplateError naming it and the reason. */
export function parseEndpointTemplate(source: string): EndpointTemplate {
  const fail = (reason: string): never => {
    throw new EndpointTemplateError(source, reason)
  }
  if (source === '') fail('it is empty')
  if (source.length > MAX_TEMPLATE_LENGTH) {
    fail(`it is longer than ${MAX_TEMPLATE_LENGTH} characters`)
  }
  if (source[0] !== '/') fail('it must start with "/"')
  if (FORBIDDEN.test(source)) fail('it contains a space or a control character')
  if (/[?#]/.test(source)) fail('a template is a path alone, without "?" or "#"')
  const raw = source.slice(1).split('/')
  const segments: TemplateSegment[] = []
  const names = new Set<string>()
  let rest = false
  for (let i = 0; i < raw.length; i++) {
    const text = raw[i]!
    const last = i === raw.length - 1
    if (text === '' && !last) fail('it has an empty segment ("//")')
    if (text === '*') {
      if (!last) fail('"*" may only end a template, as "/*"')
      rest = true
      continue
    }
    if (text.includes('*')) fail('"*" must be a whole segment at the end, as "/*"')
    if (text.includes('{') || text.includes('}')) {
      const name = parameterName(text, fail)
      if (names.has(name)) fail(`the name "{${name}}" appears twice`)
      names.add(name)
      segments.push(Object.freeze({ kind: 'param', name }))
      continue
    }
    segments.push(Object.freeze({ kind: 'literal', text: decodedLiteral(text, fail) }))
  }
  return Object.freeze({ source, segments: Object.freeze(segments), rest })
}

/**
 * Whether a path, cut by routeSegments and percent-decoded segment by
 * segment, matches the template.
 */
export function matchesTemplate(template: EndpointTemplate, decoded: readonly string[]): boolean {
  const { segments } = template
  const count = segments.length
  if (template.rest ? decoded.length <= count : decoded.length !== count) return false
  for (let i = 0; i < count; i++) {
    const segment = segments[i]!
    const text = decoded[i]!
    if (segment.kind === 'param' ? text === '' : text !== segment.text) return false
  }
  return true
}

// Whitespace, C0 and C1 controls: never in a request line's path.
const FORBIDDEN = /[\s\u0000-\u001f\u007f-\u009f]/
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

function parameterName(text: string, fail: (reason: string) => never): string {
  const open = text.indexOf('{')
  const close = text.indexOf('}')
  if (open === -1) fail('"}" has no "{" before it')
  if (close === -1) fail('"{" is not closed')
  if (open !== 0 || close !== text.length - 1) fail('a "{name}" must fill a whole segment')
  const name = text.slice(1, -1)
  if (name === '') fail('"{}" needs a name')
  if (!NAME.test(name)) {
    fail(`"{${name}}": a name is letters, digits and "_", not starting with a digit`)
  }
  return name
}

function decodedLiteral(text: string, fail: (reason: string) => never): string {
  if (text.indexOf('%') === -1) return text
  try {
    return decodeURIComponent(text)
  } catch {
    return fail(`"${text}" has a malformed percent-encoding`)
  }
}
