import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { applyPatch, createPatch } from 'rfc6902'
import { diffHighlights, marksUnder } from '../../../hub/src/lib/diff-highlight.ts'
import { getAt } from '../../../hub/src/lib/json-pointer.ts'
import type { PatchOp } from '../../../hub/src/lib/types.ts'

const doc = (body: unknown, headers: Record<string, string[]> = {}, status = 200) => ({ status, headers, body })
const entries = (m: ReadonlyMap<string, string>) => Object.fromEntries(m)

describe('diffHighlights', () => {
  test.each([
    {
      name: 'a replaced value is changed on both sides',
      live: { a: 1 },
      ops: [{ op: 'replace', path: '/body/a', value: 2 }],
      liveMarks: { '/body/a': 'changed' },
      shadowMarks: { '/body/a': 'changed' },
    },
    {
      name: 'an added field exists only in shadow',
      live: { a: 1 },
      ops: [{ op: 'add', path: '/body/b', value: { c: true } }],
      liveMarks: {},
      shadowMarks: { '/body/b': 'added' },
    },
    {
      name: 'a removed field exists only in live',
      live: { a: 1, b: 2 },
      ops: [{ op: 'remove', path: '/body/b' }],
      liveMarks: { '/body/b': 'removed' },
      shadowMarks: {},
    },
    {
      // RFC 6902 applies operations in order: the second remove at index 0
      // removes what was live item 1.
      name: 'sequential removes at one index mark successive live items',
      live: { items: ['x', 'y', 'z'] },
      ops: [
        { op: 'remove', path: '/body/items/0' },
        { op: 'remove', path: '/body/items/0' },
      ],
      liveMarks: { '/body/items/0': 'removed', '/body/items/1': 'removed' },
      shadowMarks: {},
    },
    {
      name: 'an insertion shifts later indices on the shadow side only',
      live: { items: [{ p: 1 }, { p: 2 }] },
      ops: [
        { op: 'add', path: '/body/items/0', value: { p: 0 } },
        { op: 'replace', path: '/body/items/2/p', value: 20 },
      ],
      liveMarks: { '/body/items/1/p': 'changed' },
      shadowMarks: { '/body/items/0': 'added', '/body/items/2/p': 'changed' },
    },
    {
      name: 'an append with "-" lands after the last element',
      live: { items: [1, 2] },
      ops: [{ op: 'add', path: '/body/items/-', value: 3 }],
      liveMarks: {},
      shadowMarks: { '/body/items/2': 'added' },
    },
    {
      name: 'add on an existing member replaces it (RFC 6902 §4.1)',
      live: { a: 1 },
      ops: [{ op: 'add', path: '/body/a', value: 2 }],
      liveMarks: { '/body/a': 'changed' },
      shadowMarks: { '/body/a': 'changed' },
    },
    {
      name: 'escaped keys (~1 for /, ~0 for ~) resolve',
      live: { 'a/b': { '~c': 1 } },
      ops: [{ op: 'replace', path: '/body/a~1b/~0c', value: 2 }],
      liveMarks: { '/body/a~1b/~0c': 'changed' },
      shadowMarks: { '/body/a~1b/~0c': 'changed' },
    },
    {
      name: 'a change inside an added subtree stays one added mark',
      live: {},
      ops: [
        { op: 'add', path: '/body/tax', value: { rate: 0.2 } },
        { op: 'add', path: '/body/tax/amount', value: 9 },
      ],
      liveMarks: {},
      shadowMarks: { '/body/tax': 'added' },
    },
    {
      name: 'a text body replaced as a whole marks /body',
      live: 'plain text',
      ops: [{ op: 'replace', path: '/body', value: 'other text' }],
      liveMarks: { '/body': 'changed' },
      shadowMarks: { '/body': 'changed' },
    },
  ] as const)('$name', ({ live, ops, liveMarks, shadowMarks }) => {
    const h = diffHighlights(doc(live), ops as readonly PatchOp[])
    expect(entries(h.live)).toEqual(liveMarks as Record<string, string>)
    expect(entries(h.shadow)).toEqual(shadowMarks as Record<string, string>)
    expect(h.ops.every((o) => !o.unresolved)).toBe(true)
  })

  test('status and header operations address the whole document', () => {
    const live = doc({}, { 'Content-Type': ['application/json'], 'X-Version': ['1'] })
    const h = diffHighlights(live, [
      { op: 'replace', path: '/status', value: 500 },
      { op: 'replace', path: '/headers/X-Version/0', value: '2' },
      { op: 'remove', path: '/headers/Content-Type' },
      { op: 'add', path: '/headers/X-New', value: ['y'] },
    ])
    expect(entries(h.live)).toEqual({
      '/status': 'changed',
      '/headers/X-Version/0': 'changed',
      '/headers/Content-Type': 'removed',
    })
    expect(entries(h.shadow)).toEqual({ '/status': 'changed', '/headers/X-Version/0': 'changed', '/headers/X-New': 'added' })
  })

  test('each located operation points at both sides', () => {
    const h = diffHighlights(doc({ items: ['a', 'b'] }), [
      { op: 'add', path: '/body/items/0', value: 'new' },
      { op: 'replace', path: '/body/items/2', value: 'B' },
    ])
    expect(h.ops.map((o) => [o.livePointer, o.shadowPointer])).toEqual([
      [undefined, '/body/items/0'],
      ['/body/items/1', '/body/items/2'],
    ])
  })

  test('a path that does not fit the live document is marked as is and flagged', () => {
    const h = diffHighlights(doc({ a: 1 }), [{ op: 'replace', path: '/body/missing/x', value: 1 }])
    expect(h.ops[0]?.unresolved).toBe(true)
    expect(entries(h.live)).toEqual({ '/body/missing/x': 'changed' })
    expect(entries(h.shadow)).toEqual({ '/body/missing/x': 'changed' })
  })

  test('marksUnder re-roots marks at /body', () => {
    const marks = new Map([
      ['/body', 'changed'],
      ['/body/a/0', 'added'],
      ['/bodyx', 'added'],
      ['/status', 'changed'],
    ] as const)
    expect(entries(marksUnder(marks, '/body'))).toEqual({ '': 'changed', '/a/0': 'added' })
  })

  test('only the branches the patch touches are expanded (a 1 MB body costs its diff)', () => {
    // Each item counts how often its keys are listed (what expanding it does).
    let listed = 0
    const items = Array.from(
      { length: 20_000 },
      (_, i) =>
        new Proxy(
          { id: i, name: `item ${i}`, tags: ['a', 'b'] },
          {
            ownKeys(target) {
              listed++
              return Reflect.ownKeys(target)
            },
          },
        ),
    )
    const h = diffHighlights(doc({ items }), [{ op: 'replace', path: '/body/items/15000/name', value: 'x' }])
    expect(entries(h.shadow)).toEqual({ '/body/items/15000/name': 'changed' })
    expect(listed).toBe(1)
  })

  // Any patch rfc6902 produces from live to shadow: every mark must point at
  // an existing location of its side, and every add/replace mark on the
  // shadow side must hold the operation's value.
  test('marks always resolve in their documents (property)', () => {
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.integer({ min: 0, max: 5 }),
        fc.constantFrom('a', 'b', 'c'),
        fc.boolean(),
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(fc.constantFrom('k', 'l', 'm', 'n/o', 'p~q'), tie('value'), { maxKeys: 4 }),
      ),
    })).value
    fc.assert(
      fc.property(json, json, (a, b) => {
        const live = doc(a)
        const shadow = doc(b)
        const ops = createPatch(live, shadow) as PatchOp[]
        const check = structuredClone(live)
        applyPatch(check, ops as never)
        expect(check).toEqual(shadow)

        const h = diffHighlights(live, ops)
        expect(h.ops.some((o) => o.unresolved)).toBe(false)
        for (const p of h.live.keys()) expect(getAt(live, p).found).toBe(true)
        for (const p of h.shadow.keys()) expect(getAt(shadow, p).found).toBe(true)
      }),
      { numRuns: 400 },
    )
  })
})
