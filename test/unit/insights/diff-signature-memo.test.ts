import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { PatchOp } from '../../../src/diff/index.ts'
import { diffSignature, DiffSignatureMemo, type Endpoint } from '../../../src/insights/index.ts'

type Op = Pick<PatchOp, 'op' | 'path'>

const opName = fc.constantFrom<PatchOp['op']>('add', 'remove', 'replace')
// Paths and templates with the characters a key could be confused by: digits, colons, separators.
const text = fc.string({ unit: fc.constantFrom('/', '0', '1', ':', 'a', ' ', '\n', '{', '}', '~'), maxLength: 12 })
const op = fc.record({ op: opName, path: text.map((t) => `/body${t}`) })
const endpoint = fc.record({ method: fc.constantFrom('GET', 'POST', 'G'), template: text.map((t) => `/${t}`) })
const ops = fc.array(op, { maxLength: 10 })

describe('DiffSignatureMemo', () => {
  test('gives what diffSignature gives, for every endpoint and patch, seen before or not', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(endpoint, ops), { minLength: 1, maxLength: 30 }), (calls) => {
        const memo = new DiffSignatureMemo(8)
        // Each call twice, and the whole list again: first sight, a repeat, and after other keys.
        for (const [e, o] of [...calls, ...calls]) {
          const expected = diffSignature(e, o)
          expect(memo.of(e, o)).toEqual(expected)
          expect(memo.of(e, o)).toEqual(expected)
        }
      }),
      { numRuns: 300 },
    )
  })

  test('two inputs whose texts would join alike still get their own signatures', () => {
    const memo = new DiffSignatureMemo()
    const a: [Endpoint, Op[]] = [{ method: 'GET', template: '/a' }, [{ op: 'add', path: '/body/x' }]]
    // Without the lengths, "/a" + "add" + "/body/x" would read the same as this template and path.
    const b: [Endpoint, Op[]] = [{ method: 'GET', template: '/aadd' }, [{ op: 'add', path: '/body/x' }]]
    const c: [Endpoint, Op[]] = [{ method: 'GET', template: '/a' }, [{ op: 'add', path: '/body/x' }, { op: 'add', path: '/body/y' }]]
    const d: [Endpoint, Op[]] = [{ method: 'GET', template: '/a' }, [{ op: 'add', path: '/body/xadd/body/y' }]]
    for (const [e, o] of [a, b, c, d, a, b, c, d]) expect(memo.of(e, o)).toEqual(diffSignature(e, o))
    expect(new Set([a, b, c, d].map(([e, o]) => memo.of(e, o)!.id)).size).toBe(4)
  })

  test('a patch seen before is the same signature object, not a new one', () => {
    const memo = new DiffSignatureMemo()
    const e: Endpoint = { method: 'GET', template: '/v2/products/{id}' }
    const first = memo.of(e, [{ op: 'replace', path: '/body/items/3/price' }])
    expect(memo.of(e, [{ op: 'replace', path: '/body/items/3/price' }])).toBe(first!)
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first!.ops)).toBe(true)
    expect(Object.isFrozen(first!.ops[0])).toBe(true)
  })

  test('keeps at most its capacity, and an empty patch has no signature', () => {
    const memo = new DiffSignatureMemo(4)
    const e: Endpoint = { method: 'GET', template: '/x' }
    for (let i = 0; i < 50; i++) {
      memo.of(e, [{ op: 'add', path: `/body/f${i}` }])
      expect(memo.size).toBeLessThanOrEqual(4)
    }
    expect(memo.of(e, [])).toBeUndefined()
    expect(memo.size).toBeLessThanOrEqual(4)
  })

  test('a patch with long paths is signed afresh, not kept: the memo stays small whatever the paths', () => {
    const memo = new DiffSignatureMemo()
    const e: Endpoint = { method: 'GET', template: '/x' }
    const deep = [{ op: 'replace' as const, path: `/body/${'a'.repeat(5000)}` }]
    expect(memo.of(e, deep)).toEqual(diffSignature(e, deep))
    expect(memo.size).toBe(0)
  })

  test('a long patch is signed afresh, not kept', () => {
    const memo = new DiffSignatureMemo()
    const e: Endpoint = { method: 'GET', template: '/x' }
    const long = Array.from({ length: 20 }, (_, i) => ({ op: 'add' as const, path: `/body/f${i}` }))
    expect(memo.of(e, long)).toEqual(diffSignature(e, long))
    expect(memo.size).toBe(0)
  })
})
