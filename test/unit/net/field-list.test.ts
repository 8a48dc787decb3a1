import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { FieldList, headersOf } from '../../../src/net/field-list.ts'
import { headerMapOf, headerMapOfRequest } from '../../../src/proxy/upstream/header-map.ts'

/** Names that repeat and differ in case, Set-Cookie among them. */
const name = fc.constantFrom('accept', 'x-a', 'X-A', 'x-b', 'set-cookie', 'cookie', 'host', 'x-forwarded-for', 'connection', '__proto__', 'constructor')
/** Field values as the raw server reads them: trimmed, visible ASCII inside, or empty. */
const value = fc.oneof(fc.constant(''), fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,8}[\x21-\x7e])?$/))
const fields = fc.array(fc.tuple(name, value), { maxLength: 12 })
/** What the forwarding rules do to a request's fields. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), name, value }),
  fc.record({ kind: fc.constant('delete' as const), name }),
)

/** A FieldList as the raw server makes one: lower-case names. */
function listOf(pairs: readonly (readonly [string, string])[]): FieldList {
  return new FieldList(
    pairs.map(([n]) => n.toLowerCase()),
    pairs.map(([, v]) => v),
  )
}

function headersFrom(pairs: readonly (readonly [string, string])[]): Headers {
  const headers = new Headers()
  for (const [n, v] of pairs) headers.append(n, v)
  return headers
}

describe('FieldList answers as Headers does', () => {
  test('get, has, the header map and a Headers copy, after any sets and deletes', () => {
    fc.assert(
      fc.property(fields, fc.array(edit, { maxLength: 6 }), (pairs, edits) => {
        const list = listOf(pairs)
        const headers = headersFrom(pairs)
        for (const each of edits) {
          if (each.kind === 'set') {
            list.set(each.name, each.value)
            headers.set(each.name, each.value)
          } else {
            list.delete(each.name)
            headers.delete(each.name)
          }
        }
        for (const probe of ['accept', 'X-A', 'x-b', 'set-cookie', 'cookie', 'host', 'x-forwarded-for', 'connection', '__proto__', 'constructor', 'absent']) {
          expect(list.get(probe)).toBe(headers.get(probe))
          expect(list.has(probe)).toBe(headers.has(probe))
        }
        expect(headerMapOfRequest(list)).toEqual(headerMapOf(headers))
        expect(headerMapOf(headersOf(list))).toEqual(headerMapOf(headers))
      }),
    )
  })

  test('forEach gives each field in the order sent, a repeated one not joined', () => {
    const list = listOf([
      ['x-b', '1'],
      ['accept', '*/*'],
      ['x-b', '2'],
    ])
    const seen: string[] = []
    list.forEach((v, n) => seen.push(`${n}: ${v}`))
    expect(seen).toEqual(['x-b: 1', 'accept: */*', 'x-b: 2'])
    expect(list.get('X-B')).toBe('1, 2')
  })

  test('set keeps the place of the first field of that name and drops the others', () => {
    const list = listOf([
      ['x-a', '1'],
      ['accept', '*/*'],
      ['x-a', '2'],
    ])
    list.set('X-A', '3')
    list.set('x-new', '4')
    const seen: string[] = []
    list.forEach((v, n) => seen.push(`${n}: ${v}`))
    expect(seen).toEqual(['x-a: 3', 'accept: */*', 'x-new: 4'])
  })
})
