import { lowerCase } from '../text/case.ts'

/**
 * A request's header fields as the raw server read them off the wire
 * (docs/proxy.md "The raw server"): lower-case names in the order sent,
 * each with its trimmed value, in two plain arrays. It answers the part of
 * `Headers` the proxy reads and edits on a request (`get`, `has`, `set`,
 * `delete`, `keys`, `forEach`), with the same results, so that the
 * forwarding rules and our HTTP/1.1 client take either. A `Headers` object
 * is a native one: building one per request, copying it and walking it
 * for each upstream cost the raw server several µs of CPU per request
 * (docs/benchmarks/proxy.md). No I/O here.
 *
 * Names given to its methods may be in any case, as with `Headers`.
 * Values are taken as they are: the raw server's parser admits only valid
 * field values (`request-head.ts`), trimmed, and the forwarding rules set
 * values made of those and of the peer's address, so `set` does not
 * trim or check as `Headers.set` does.
 */
export class FieldList {
  /** Takes the arrays as they are (the raw server's own, not copied): `values[i]` is the value of `names[i]`. */
  constructor(
    private readonly names: string[],
    private readonly values: string[],
  ) {}

  /** The values of `name` joined as `Headers.get` joins them (`separatorOf`); null when absent. */
  get(name: string): string | null {
    name = lowerCase(name)
    const separator = separatorOf(name)
    let joined: string | null = null
    const { names, values } = this
    for (let i = 0; i < names.length; i++) {
      if (names[i] === name) joined = joined === null ? values[i]! : `${joined}${separator}${values[i]!}`
    }
    return joined
  }

  has(name: string): boolean {
    return this.names.includes(lowerCase(name))
  }

  /** Replaces every field of that name with one, where the first was (at the end when there was none). */
  set(name: string, value: string): void {
    name = lowerCase(name)
    const index = this.names.indexOf(name)
    if (index === -1) {
      this.names.push(name)
      this.values.push(value)
      return
    }
    this.values[index] = value
    this.deleteFrom(name, index + 1)
  }

  delete(name: string): void {
    this.deleteFrom(lowerCase(name), 0)
  }

  /** The names, one per field (a repeated name comes once per field). */
  keys(): readonly string[] {
    return this.names
  }

  /** Each field in the order sent, a repeated one not joined. */
  forEach(callback: (value: string, name: string) => void): void {
    const { names, values } = this
    for (let i = 0; i < names.length; i++) callback(values[i]!, names[i]!)
  }

  /** A Headers object of the same fields, for fetch (the noise check's repeat, an `https:` shadow). */
  toHeaders(): Headers {
    const headers = new Headers()
    this.forEach((value, name) => headers.append(name, value))
    return headers
  }

  /**
   * The fields by name, repeated ones joined as `Headers#toJSON` joins
   * them, and the Set-Cookie values apart: what `headerMapOfFields` takes.
   */
  toRecord(): { readonly fields: Record<string, string>; readonly setCookies: string[] } {
    const fields: Record<string, string> = Object.create(null)
    const setCookies: string[] = []
    this.forEach((value, name) => {
      if (name === 'set-cookie') setCookies.push(value)
      else fields[name] = name in fields ? `${fields[name]!}${separatorOf(name)}${value}` : value
    })
    return { fields, setCookies }
  }

  private deleteFrom(name: string, from: number): void {
    const { names, values } = this
    let kept = from
    for (let i = from; i < names.length; i++) {
      if (names[i] === name) continue
      names[kept] = names[i]!
      values[kept] = values[i]!
      kept++
    }
    names.length = kept
    values.length = kept
  }
}

/** Bun's Headers join repeated Cookie fields with "; " (RFC 6265's one Cookie line), any other with ", ". */
function separatorOf(name: string): string {
  return name === 'cookie' ? '; ' : ', '
}

/** A request's fields: Bun's `Headers` (the Bun.serve path) or a `FieldList` (the raw server). */
export type RequestFields = Headers | FieldList

/** A `Headers` object for fetch: the same one when it is one. */
export function headersOf(fields: RequestFields): Headers {
  return fields instanceof FieldList ? fields.toHeaders() : fields
}

/** A `Headers` object of the same fields that the caller may change: always a new one. */
export function headersCopyOf(fields: RequestFields): Headers {
  return fields instanceof FieldList ? fields.toHeaders() : new Headers(fields)
}
