/**
 * The API's routes as method + template, so that a path known under another
 * method can be answered 405 with an Allow header rather than 404.
 */
export class RouteTable {
  private readonly entries: Array<{ pattern: RegExp; method: string }> = []

  add(method: string, template: string): void {
    const pattern = new RegExp(
      '^' + template.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z_]+/g, '[^/]+').replace(/\*$/, '.*') + '/?$',
    )
    this.entries.push({ pattern, method: method.toUpperCase() })
  }

  methodsFor(path: string): string[] {
    const methods = new Set<string>()
    for (const entry of this.entries) if (entry.pattern.test(path)) methods.add(entry.method)
    return [...methods]
  }
}
