import { EndpointTemplates } from './endpoint-templates.ts'

/**
 * What a capture is counted under (docs/insights.md "Endpoints"): the
 * request's method, as received, and the route template of its path.
 */
export interface Endpoint {
  readonly method: string
  readonly template: string
}

/** The endpoint of a request, by the gate's explicit templates, else the automatic rule. */
export function endpointOf(
  method: string,
  path: string,
  templates: EndpointTemplates = EndpointTemplates.NONE,
): Endpoint {
  return { method, template: templates.templateOf(path) }
}

/**
 * The template that new templates count under once a gate has
 * MAX_TEMPLATES_PER_GATE of them. It cannot be mistaken for a real one:
 * every template starts with `/`.
 */
export const OTHER_TEMPLATE = '(other)'

/** Distinct templates a gate keeps before new ones count under OTHER_TEMPLATE. */
export const MAX_TEMPLATES_PER_GATE = 2000

/** The part of a Set the caps read; a store may keep something leaner than a Set. */
export interface KnownSet {
  has(value: string): boolean
  readonly size: number
}

/**
 * The template to count a capture under, given the templates the gate
 * already has: a known one, or a new one while there is room, stays as it
 * is; a new one once `known` holds `max` becomes OTHER_TEMPLATE, which is
 * always allowed: a gate holds at most `max` templates plus `(other)`.
 */
export function templateWithinCap(
  template: string,
  known: KnownSet,
  max: number = MAX_TEMPLATES_PER_GATE,
): string {
  if (template === OTHER_TEMPLATE || known.has(template) || known.size < max) return template
  return OTHER_TEMPLATE
}
