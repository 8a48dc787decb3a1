import { fieldPathProblem } from '../../../src/diff/field-path.ts'
/** Form checks shared by the gate forms; the API remains the authority. */

/** An http(s) URL with a host, as the proxy needs for live_url and shadow_url. */
export function urlError(value: string): string | undefined {
  if (!value) return 'Enter a URL.'
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'Enter a full URL, such as http://host:8080.'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Use an http:// or https:// URL.'
  if (!url.hostname) return 'The URL needs a host.'
  return undefined
}

/**
 * Which form field a Problem `detail` is about. The API names the field in its
 * detail (docs/reference/api.md "Problems": the `detail` names the field), e.g.
 * `live_url: must be a URL` or `a gate named "x" already exists`. The longest
 * matching name wins, so `diff_config.float_tolerance` is not mistaken for
 * `diff_config`.
 */
export function fieldOfDetail<F extends string>(detail: string, fields: readonly F[]): F | undefined {
  const text = detail.toLowerCase()
  const sorted = [...fields].sort((a, b) => b.length - a.length)
  for (const f of sorted) if (text.includes(f.toLowerCase())) return f
  if (/\bname\b|named/.test(text) && fields.includes('name' as F)) return 'name' as F
  return undefined
}

/** A gate's explicit endpoint templates at most (docs/reference/api.md "updateGate"). */
export const MAX_ENDPOINTS = 500

/** One entry per line (a template may hold a comma); blanks dropped, order kept, duplicates removed. */
export function parseLines(text: string): string[] {
  return entriesOf(text, '\n')
}

/** What the API would refuse in a list of endpoint templates that the hub can tell first; the API checks the rest. */
export function endpointTemplatesError(templates: readonly string[]): string | undefined {
  if (templates.length > MAX_ENDPOINTS) return `At most ${MAX_ENDPOINTS} templates (${templates.length} given).`
  const bad = templates.find((t) => !t.startsWith('/'))
  return bad === undefined ? undefined : `"${bad}" must start with /.`
}

/** One entry per line or comma; blanks dropped, order kept, duplicates removed. */
export function parseList(text: string): string[] {
  return entriesOf(text, /[\n,]/)
}

/** The entries of `text` between separators, trimmed; blanks dropped, order kept, duplicates removed. */
function entriesOf(text: string, separator: string | RegExp): string[] {
  const out: string[] = []
  for (const raw of text.split(separator)) {
    const v = raw.trim()
    if (v && !out.includes(v)) out.push(v)
  }
  return out
}

/**
 * A gjson-style field path with a `status`, `headers.` or `body.` prefix
 * (docs/diff.md).
 */
export function fieldPathError(path: string): string | undefined {
  if (!(path === 'status' || /^(headers|body)(\.|$)/.test(path))) return `"${path}" must start with status, headers. or body.`
  // The API's own rule (docs/diff.md "Field paths"), so that a path it refuses is caught here, not in the preview.
  const problem = fieldPathProblem(path)
  return problem === undefined ? undefined : `${problem.replace(/^invalid field path /, '')}.`
}
