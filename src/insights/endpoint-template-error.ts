/**
 * An explicit endpoint template, or a list of them, that breaks the syntax
 * of docs/insights.md "Explicit templates". `template` is the offending
 * template (undefined when the list as a whole is wrong, as when it is too
 * long) and `index` its position in the list, when it came from one.
 */
export class EndpointTemplateError extends Error {
  readonly code = 'invalid-endpoint-template'
  constructor(
    readonly template: string | undefined,
    readonly reason: string,
    readonly index?: number,
  ) {
    super(describe(template, reason, index))
  }
}

/** Templates are settings, not secrets; a long one is cut so that the message stays readable. */
const MAX_SHOWN = 120

function describe(template: string | undefined, reason: string, index: number | undefined): string {
  if (template === undefined) return `invalid endpoint templates: ${reason}`
  const shown = template.length > MAX_SHOWN ? template.slice(0, MAX_SHOWN) + '…' : template
  const where = index === undefined ? '' : ` (at index ${index})`
  return `invalid endpoint template ${JSON.stringify(shown)}${where}: ${reason}`
}
