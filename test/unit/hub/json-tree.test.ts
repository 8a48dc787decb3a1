import { describe, expect, test } from 'bun:test'
import { ancestorsOf } from '../../../hub/src/lib/json-pointer.ts'
import { CHUNK, MARKED_CHUNK, initialOpen, shortLimits } from '../../../hub/src/lib/json-tree.ts'

describe('what the JSON tree opens first', () => {
  test('a small document opens fully', () => {
    const doc = { a: { b: [1, 2], c: { d: true } }, e: 'x' }
    expect([...initialOpen(doc, new Set())].sort()).toEqual(['', '/a', '/a/b', '/a/c'])
  })

  test('large nodes start collapsed; the root always opens', () => {
    const doc = { big: Array.from({ length: 5000 }, (_, i) => ({ i })), small: { x: 1 } }
    const open = initialOpen(doc, new Set())
    expect(open.has('')).toBe(true)
    expect(open.has('/small')).toBe(true)
    expect(open.has('/big')).toBe(false)
  })

  test('a root array of 10,000 objects opens the root and only a budget of its children', () => {
    const doc = Array.from({ length: 10_000 }, (_, i) => ({ id: i, tags: ['a'] }))
    const open = initialOpen(doc, new Set())
    expect(open.has('')).toBe(true)
    expect(open.size).toBeLessThan(CHUNK + 2)
  })

  test('the branches down to a diff open whatever their size, with a short first page', () => {
    const doc = { items: Array.from({ length: 5000 }, (_, i) => ({ price: i })) }
    const ancestors = ancestorsOf(['/items/4321/price'])
    const open = initialOpen(doc, ancestors)
    expect(open.has('/items')).toBe(true)
    expect(open.has('/items/4321')).toBe(true)
    expect(shortLimits(doc, ancestors)).toEqual(new Map([['/items', MARKED_CHUNK]]))
  })
})
