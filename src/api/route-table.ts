/**
 * The API's routes as method + template, so that a path known under another
 * method can be answered 405 with an Allow header rather than 404.
 */
export class RouteTable {
  private readonly entries: Array<{ pattern: RegExp; method: string; template: string }> = []
  /** Methods answered on every path (CORS preflight): listed for known paths only. */
  private readonly everywhere = new Set<string>()

  /** A method a catch-all answers on any path: it makes no path known. */
  addEverywhere(method: string): void {
    this.everywhere.add(method.toUpperCase())
  }

  add(method: string, template: string): void {
    const pattern = new RegExp(
      '^' + template.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+').replace(/\*$/, '.*') + '/?$',
    )
    const upper = method.toUpperCase()
    this.entries.push({ pattern, method: upper, template })
    // Elysia answers HEAD wherever it answers GET.
    if (upper === 'GET') this.entries.push({ pattern, method: 'HEAD', template })
  }

  /** The template of the route `method` and `path` would take (`/gates/:gate_id`), if any. */
  templateFor(method: string, path: string): string | undefined {
    const upper = method.toUpperCase()
    return this.entries.find((entry) => entry.method === upper && entry.pattern.test(path))?.template
  }

  methodsFor(path: string): string[] {
    const methods = new Set<string>()
    for (const entry of this.entries) if (entry.pattern.test(path)) methods.add(entry.method)
    if (methods.size > 0) for (const method of this.everywhere) methods.add(method)
    return [...methods]
  }
}
