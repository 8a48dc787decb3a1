import { templateOfSegments } from './automatic-template.ts'
import { EndpointTemplateError } from './endpoint-template-error.ts'
import {
  matchesTemplate,
  parseEndpointTemplate,
  type EndpointTemplate,
} from './endpoint-template.ts'
import { decodedSegment, routeSegments } from './route-path.ts'

/** At most this many explicit templates per list (a gate's `endpoints`, SVC_APP_ENDPOINTS). */
export const MAX_ENDPOINT_TEMPLATES = 500

/**
 * A checked list of explicit templates, in the order given: the first that
 * matches a path names its endpoint; a path none matches gets its automatic
 * template (docs/insights.md "Explicit templates").
 */
export class EndpointTemplates {
  private constructor(readonly templates: readonly EndpointTemplate[]) {}

  /** The empty list: every path gets its automatic template. */
  static readonly NONE = new EndpointTemplates([])

  /**
   * Parses a list of template sources; throws EndpointTemplateError for
   * a list longer than MAX_ENDPOINT_TEMPLATES, a template listed twice, or
   * the first bad template (with its index).
   */
  static parse(sources: readonly string[]): EndpointTemplates {
    if (sources.length > MAX_ENDPOINT_TEMPLATES) {
      throw new EndpointTemplateError(
        undefined,
        `at most ${MAX_ENDPOINT_TEMPLATES} templates are allowed, got ${sources.length}`,
      )
    }
    if (sources.length === 0) return EndpointTemplates.NONE
    const seen = new Set<string>()
    const templates = sources.map((source, index) => {
      if (seen.has(source)) throw new EndpointTemplateError(source, 'it is listed twice', index)
      seen.add(source)
      try {
        return parseEndpointTemplate(source)
      } catch (error) {
        if (error instanceof EndpointTemplateError) {
          throw new EndpointTemplateError(source, error.reason, index)
        }
        throw error
      }
    })
    return new EndpointTemplates(Object.freeze(templates))
  }

  /** A request path's template: the first explicit one that matches, else the automatic one. */
  templateOf(path: string): string {
    const segments = routeSegments(path)
    if (this.templates.length > 0) {
      const decoded = segments.map(decodedSegment)
      for (const template of this.templates) {
        if (matchesTemplate(template, decoded)) return template.source
      }
    }
    return templateOfSegments(segments)
  }
}

/** Why a list of templates is invalid, or undefined when it is fine: for API and config errors. */
export function endpointTemplatesProblem(sources: readonly string[]): string | undefined {
  try {
    EndpointTemplates.parse(sources)
    return undefined
  } catch (error) {
    if (error instanceof EndpointTemplateError) return error.message
    throw error
  }
}
