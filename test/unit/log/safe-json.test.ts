import { describe, expect, test } from 'bun:test'
import { safeJsonStringify } from '../../../src/log/safe-json.ts'

describe('safeJsonStringify', () => {
  test('plain data is exactly what JSON.stringify gives', () => {
    const patch = [
      { op: 'replace', path: '/body/price', value: 1.5 },
      { op: 'remove', path: '/a' },
    ]
    expect(safeJsonStringify(patch)).toBe(JSON.stringify(patch))
  })

  test('marks circular references', () => {
    const a: Record<string, unknown> = { name: 'a' }
    a.self = a
    a.list = [a]
    expect(safeJsonStringify(a)).toBe('{"name":"a","self":"[Circular]","list":["[Circular]"]}')
  })

  test('prints shared (non-circular) objects each time', () => {
    const shared = { x: 1 }
    expect(safeJsonStringify({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}')
  })

  test('writes BigInt as a decimal string, nested too', () => {
    expect(safeJsonStringify({ n: 2n ** 70n })).toBe('{"n":"1180591620717411303424"}')
  })

  test('writes nested errors as their message, not {}', () => {
    expect(safeJsonStringify({ cause: new Error('refused') })).toBe('{"cause":"refused"}')
  })

  test('writes binary data as its length, never its bytes', () => {
    expect(safeJsonStringify({ body: Buffer.from('password=hunter2') })).toBe(
      '{"body":"[16 bytes]"}',
    )
    expect(safeJsonStringify({ raw: new ArrayBuffer(4) })).toBe('{"raw":"[4 bytes]"}')
  })

  test('writes Map as an object and Set as an array, and detects their cycles', () => {
    const map = new Map<string, unknown>([['a', 1]])
    map.set('me', map)
    expect(safeJsonStringify({ map, set: new Set([1, 2]) })).toBe(
      '{"map":{"a":1,"me":"[Circular]"},"set":[1,2]}',
    )
  })

  test('survives throwing getters and proxies', () => {
    const hostile = {
      get boom(): never {
        throw new Error('nope')
      },
    }
    expect(safeJsonStringify(hostile)).toBe('"[unserializable: nope]"')
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap')
        },
      },
    )
    expect(() => JSON.parse(safeJsonStringify(proxy))).not.toThrow()
  })

  test('cuts absurd nesting, quickly', () => {
    let deep: unknown = 'end'
    for (let i = 0; i < 100_000; i++) deep = [deep]
    const text = safeJsonStringify(deep)
    expect(text).toContain('"[Too deep]"')
    expect(text.length).toBeLessThan(1000)
    expect(() => JSON.parse(text)).not.toThrow()
  })

  test('gives null for what JSON cannot express at the top', () => {
    expect(safeJsonStringify(undefined)).toBe('null')
    expect(safeJsonStringify(() => 1)).toBe('null')
  })
})
