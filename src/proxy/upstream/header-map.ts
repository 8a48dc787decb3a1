/**
 * Response and request headers as the captures carry them: the
 * API's header map (docs/reference/api.md "Capture (request)"), canonical
 * name to values, built from a `Headers` object
 * (fetch) or from the fields our HTTP/1.1 reader parsed.
 */
import { canonicalHeaderName, type HeaderMap } from '../../diff/index.ts'
import { FieldList, type RequestFields } from '../../net/field-list.ts'

/**
 * A Headers object as the API's header map (canonical name to values);
 * Set-Cookie keeps each value.
 */
export function headerMapOf(headers: Headers): HeaderMap {
  // Bun's toJSON() builds the name → combined value object natively, far
  // cheaper than iterating [name, value] pairs. Names are sorted as Headers
  // iteration gives them, Set-Cookie last with each of its values.
  const json = headers.toJSON() as Record<string, string | string[]>
  return headerMapOfFields(json, json['set-cookie'] === undefined ? NO_COOKIES : headers.getSetCookie())
}

const NO_COOKIES: readonly string[] = []

/** A request's fields as the same map, whichever server read them. */
export function headerMapOfRequest(fields: RequestFields): HeaderMap {
  if (!(fields instanceof FieldList)) return headerMapOf(fields)
  const record = fields.toRecord()
  return headerMapOfFields(record.fields, record.setCookies)
}

/**
 * The same map from fields by lower-case name, repeated ones joined with
 * ", " (a `set-cookie` key among them is skipped), and the Set-Cookie values.
 */
export function headerMapOfFields(
  fields: Readonly<Record<string, string | readonly string[]>>,
  setCookies: readonly string[],
): HeaderMap {
  const names = Object.keys(fields)
  // Insertion sort: a handful of names, far cheaper than Array#sort's generic path.
  for (let i = 1; i < names.length; i++) {
    const name = names[i]!
    let j = i - 1
    while (j >= 0 && names[j]! > name) {
      names[j + 1] = names[j]!
      j--
    }
    names[j + 1] = name
  }
  const map: HeaderMap = {}
  for (const name of names) {
    if (name === 'set-cookie') continue
    const key = canonicalHeaderName(name)
    // `__proto__` is a header name like any other, not the map's prototype.
    if (key === '__proto__') Object.defineProperty(map, key, { value: [fields[name]], enumerable: true, writable: true, configurable: true })
    else map[key] = [fields[name] as string]
  }
  if (setCookies.length > 0) map['Set-Cookie'] = [...setCookies]
  return map
}
