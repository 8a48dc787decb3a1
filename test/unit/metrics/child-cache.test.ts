import { describe, expect, test } from 'bun:test'
import { ChildCache } from '../../../src/metrics/child-cache.ts'

function cache(labelNames: string[]) {
  return new ChildCache('m', labelNames, (values) => ({ values }))
}

describe('ChildCache', () => {
  test('makes one child per combination and returns it again', () => {
    const children = cache(['a', 'b'])
    const first = children.get(['x', 'y'])
    expect(children.get(['x', 'y'])).toBe(first)
    expect(children.get(['x', 'z'])).not.toBe(first)
    expect(first.values).toEqual(['x', 'y'])
  })

  test('values that would collide when joined stay apart', () => {
    const children = cache(['a', 'b'])
    expect(children.get(['a\u0000b', 'c'])).not.toBe(children.get(['a', 'b\u0000c']))
    expect(children.get(['a,b', 'c'])).not.toBe(children.get(['a', 'b,c']))
  })

  test('hands creators stringified values, numbers included', () => {
    const children = cache(['code', 'port'])
    expect(children.get([404, 8080]).values).toEqual(['404', '8080'])
    expect(children.get(['404', '8080'])).toBe(children.get([404, 8080]))
  })

  test('without labels there is exactly one child', () => {
    const children = cache([])
    expect(children.get([])).toBe(children.get([]))
    expect([...children.values()]).toHaveLength(1)
  })

  test('lists children in creation order', () => {
    const children = cache(['a'])
    children.get(['z'])
    children.get(['a'])
    children.get([1])
    expect([...children.values()].map((c) => c.values[0])).toEqual(['z', 'a', '1'])
  })

  test('delete removes a child under every alias', () => {
    const children = cache(['code'])
    const child = children.get([200])
    expect(children.delete(['200'])).toBe(true)
    expect(children.get([200])).not.toBe(child)
    expect([...children.values()]).toHaveLength(1)
  })

  test('delete of an unknown combination is false', () => {
    const children = cache(['a', 'b'])
    children.get(['x', 'y'])
    expect(children.delete(['x', 'nope'])).toBe(false)
    expect(children.delete(['nope', 'y'])).toBe(false)
  })
})
