import { describe, expect, test } from 'bun:test'
import { applyPatch, type Operation } from 'fast-json-patch'
import {
  compareDocuments,
  compileDiffConfig,
  DEFAULT_DIFF_CONFIG,
  type DiffConfig,
  type PatchOp,
} from '../../../src/diff/index.ts'

const config = (overrides: Partial<DiffConfig> = {}): DiffConfig => ({
  ...DEFAULT_DIFF_CONFIG,
  ...overrides,
})

/** Applies a patch with fast-json-patch, an independent RFC 6902 implementation. */
function apply(document: unknown, ops: PatchOp[]): unknown {
  return applyPatch(structuredClone(document), structuredClone(ops) as Operation[], true, true)
    .newDocument
}

type Case = [name: string, live: unknown, shadow: unknown, ops: PatchOp[]]

describe('compareDocuments: objects and values', () => {
  const cases: Case[] = [
    ['identical documents', { a: 1, b: [1, { c: null }] }, { a: 1, b: [1, { c: null }] }, []],
    ['key order does not matter', { a: 1, b: 2 }, { b: 2, a: 1 }, []],
    [
      'a changed leaf is one replace',
      { a: { b: 1 } },
      { a: { b: 2 } },
      [{ op: 'replace', path: '/a/b', value: 2 }],
    ],
    [
      'a member only in shadow is an add',
      { a: 1 },
      { a: 1, b: { c: [] } },
      [{ op: 'add', path: '/b', value: { c: [] } }],
    ],
    ['a member only in live is a remove', { a: 1, b: 2 }, { a: 1 }, [{ op: 'remove', path: '/b' }]],
    [
      'object to array is a replace',
      { a: { x: 1 } },
      { a: [1] },
      [{ op: 'replace', path: '/a', value: [1] }],
    ],
    [
      'null to object is a replace',
      { a: null },
      { a: {} },
      [{ op: 'replace', path: '/a', value: {} }],
    ],
    [
      'number to string is a replace',
      { a: 1 },
      { a: '1' },
      [{ op: 'replace', path: '/a', value: '1' }],
    ],
    ['false to 0 is a replace', { a: false }, { a: 0 }, [{ op: 'replace', path: '/a', value: 0 }]],
    ['different roots are one replace of ""', 1, 2, [{ op: 'replace', path: '', value: 2 }]],
    ['-0 equals 0, as in JSON text', { a: -0 }, { a: 0 }, []],
    [
      'unicode keys are written as they are',
      { ключ: 1, '😀': 1 },
      { ключ: 2, '😀': 1 },
      [{ op: 'replace', path: '/ключ', value: 2 }],
    ],
    [
      '"/" in a key is escaped ~1',
      { 'a/b': 1 },
      { 'a/b': 2 },
      [{ op: 'replace', path: '/a~1b', value: 2 }],
    ],
    [
      '"~" in a key is escaped ~0',
      { 'm~n': 1 },
      { 'm~n': 2 },
      [{ op: 'replace', path: '/m~0n', value: 2 }],
    ],
    [
      '"~1" in a key is escaped ~01',
      { '~1': 1 },
      { '~1': 2 },
      [{ op: 'replace', path: '/~01', value: 2 }],
    ],
    [
      'the empty key is the pointer "/"',
      { '': 1 },
      { '': 2 },
      [{ op: 'replace', path: '/', value: 2 }],
    ],
    [
      'names of Object.prototype members are plain keys (remove)',
      { toString: 1, constructor: 2 },
      {},
      [
        { op: 'remove', path: '/toString' },
        { op: 'remove', path: '/constructor' },
      ],
    ],
    [
      'names of Object.prototype members are plain keys (add)',
      {},
      { hasOwnProperty: 1 },
      [{ op: 'add', path: '/hasOwnProperty', value: 1 }],
    ],
    [
      'a __proto__ member only in live is a remove',
      JSON.parse('{"__proto__":{}}'),
      {},
      [{ op: 'remove', path: '/__proto__' }],
    ],
    [
      'a __proto__ member only in shadow is an add',
      {},
      JSON.parse('{"__proto__":{"x":1}}'),
      [{ op: 'add', path: '/__proto__', value: JSON.parse('{"x":1}') }],
    ],
  ]
  test.each(cases)('%s', (_, live, shadow, ops) => {
    expect(compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)).toEqual(ops)
  })

  test('a remove has no value member; add and replace carry the shadow value', () => {
    const ops = compareDocuments({ a: 1, b: 1 }, { b: 2, c: 3 }, DEFAULT_DIFF_CONFIG)
    expect(ops).toEqual([
      { op: 'remove', path: '/a' },
      { op: 'replace', path: '/b', value: 2 },
      { op: 'add', path: '/c', value: 3 },
    ])
    expect('value' in ops[0]!).toBe(false)
  })

  test('a compiled config gives the same patch as the plain one', () => {
    const plain = config({ ignored_fields: ['body.x'] })
    const live = { body: { x: 1, y: 1 } }
    const shadow = { body: { x: 2, y: 2 } }
    expect(compareDocuments(live, shadow, compileDiffConfig(plain))).toEqual(
      compareDocuments(live, shadow, plain),
    )
  })
})

describe('compareDocuments: arrays in order', () => {
  const A = { id: 1, name: 'a', tags: ['x'] }
  const B = { id: 2, name: 'b', tags: ['y'] }
  const C = { id: 3, name: 'c', tags: [] }
  const X = { id: 9, name: 'x', tags: ['z'] }
  const cases: Case[] = [
    [
      'an insertion at the start is one add',
      [1, 2, 3],
      [0, 1, 2, 3],
      [{ op: 'add', path: '/0', value: 0 }],
    ],
    [
      'an insertion in the middle is one add',
      [A, B, C],
      [A, X, B, C],
      [{ op: 'add', path: '/1', value: X }],
    ],
    [
      'an insertion at the end is one add',
      [A, B],
      [A, B, C],
      [{ op: 'add', path: '/2', value: C }],
    ],
    ['a removal is one remove', [A, B, C], [A, C], [{ op: 'remove', path: '/1' }]],
    [
      'removing the tail removes at the same index',
      [1, 2, 3],
      [1],
      [
        { op: 'remove', path: '/1' },
        { op: 'remove', path: '/1' },
      ],
    ],
    [
      'adding a tail adds at growing indices',
      [1],
      [1, 2, 3],
      [
        { op: 'add', path: '/1', value: 2 },
        { op: 'add', path: '/2', value: 3 },
      ],
    ],
    [
      'a move is a remove/add pair',
      ['all', 'grass', 'cows', 'eat'],
      ['all', 'cows', 'eat', 'grass'],
      [
        { op: 'remove', path: '/1' },
        { op: 'add', path: '/3', value: 'grass' },
      ],
    ],
    [
      'a modified element is diffed in place',
      [A, B, C],
      [A, { ...B, name: 'B' }, C],
      [{ op: 'replace', path: '/1/name', value: 'B' }],
    ],
    [
      'an insertion next to a modified element: one add, one replace',
      [A, B, C],
      [A, X, { ...B, name: 'B' }, C],
      [
        { op: 'add', path: '/1', value: X },
        { op: 'replace', path: '/2/name', value: 'B' },
      ],
    ],
    [
      'a removal next to a modified element: one remove, one replace',
      [A, B, C],
      [{ ...B, tags: ['w'] }, C],
      [
        { op: 'remove', path: '/0' },
        { op: 'replace', path: '/0/tags/0', value: 'w' },
      ],
    ],
    [
      'arrays of arrays are diffed recursively',
      [
        [1, 2],
        [3, 4],
      ],
      [
        [1, 2],
        [3, 5],
      ],
      [{ op: 'replace', path: '/1/1', value: 5 }],
    ],
    [
      'an insertion inside a nested array',
      [
        [1, 2],
        [3, 4],
      ],
      [
        [1, 2],
        [3, 9, 4],
      ],
      [{ op: 'add', path: '/1/1', value: 9 }],
    ],
    [
      'unaligned primitives at the same gap are replaced',
      [1, 2, 3],
      [1, 5, 3],
      [{ op: 'replace', path: '/1', value: 5 }],
    ],
    [
      'an object meeting a number at the same gap is replaced',
      [1, { a: 1 }, 3],
      [1, 7, 3],
      [{ op: 'replace', path: '/1', value: 7 }],
    ],
    [
      'a reversal keeps the longest common run',
      [1, 2, 3],
      [3, 2, 1],
      [
        { op: 'remove', path: '/0' },
        { op: 'remove', path: '/0' },
        { op: 'add', path: '/1', value: 2 },
        { op: 'add', path: '/2', value: 1 },
      ],
    ],
    [
      'emptied array',
      [1, 2],
      [],
      [
        { op: 'remove', path: '/0' },
        { op: 'remove', path: '/0' },
      ],
    ],
  ]
  test.each(cases)('%s', (_, live, shadow, ops) => {
    const patch = compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)
    expect(patch).toEqual(ops)
    expect(apply(live, patch)).toEqual(shadow)
  })

  test('one record inserted into 700 is one add, not a cascade of replaces', () => {
    const records = Array.from({ length: 700 }, (_, i) => ({
      id: i,
      name: `r${i}`,
      nested: { n: i, list: [i, i + 1] },
    }))
    const shadow = [
      ...records.slice(0, 350),
      { id: -1, name: 'new', nested: { n: -1, list: [] } },
      ...records.slice(350),
    ]
    const patch = compareDocuments({ body: records }, { body: shadow }, DEFAULT_DIFF_CONFIG)
    expect(patch).toEqual([{ op: 'add', path: '/body/350', value: shadow[350] }])
  })

  test('and so it stays when both ends change too, so that trimming cannot help', () => {
    const records = Array.from({ length: 700 }, (_, i) => ({
      id: i,
      name: `r${i}`,
      nested: { n: i },
    }))
    const inserted = { id: -1, name: 'new', nested: { n: -1 } }
    const shadow = [
      { ...records[0]!, name: 'first' },
      ...records.slice(1, 350),
      inserted,
      ...records.slice(350, 699),
      { ...records[699]!, nested: { n: 0 } },
    ]
    expect(compareDocuments(records, shadow, DEFAULT_DIFF_CONFIG)).toEqual([
      { op: 'replace', path: '/0/name', value: 'first' },
      { op: 'add', path: '/350', value: inserted },
      { op: 'replace', path: '/700/nested/n', value: 0 },
    ])
  })

  test('strings that differ only in the middle are told apart (timestamps)', () => {
    const live = Array.from(
      { length: 30 },
      (_, i) => `2024-01-01T${String(i).padStart(2, '0')}:00:00Z`,
    )
    // Both ends change too, so trimming equal ends cannot do the work.
    const shadow = [
      'first',
      ...live.slice(1, 15),
      '2024-01-01T99:00:00Z',
      ...live.slice(15, 29),
      'last',
    ]
    expect(compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)).toEqual([
      { op: 'replace', path: '/0', value: 'first' },
      { op: 'add', path: '/15', value: '2024-01-01T99:00:00Z' },
      { op: 'replace', path: '/30', value: 'last' },
    ])
  })

  test('wrappers that differ only deep inside are still told apart', () => {
    const live = Array.from({ length: 20 }, (_, i) => ({ data: { id: i } }))
    const shadow = [
      { data: { id: 100 } },
      ...live.slice(1, 10),
      { data: { id: 99 } },
      ...live.slice(10, 19),
      { data: { id: 101 } },
    ]
    expect(compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)).toEqual([
      { op: 'replace', path: '/0/data/id', value: 100 },
      { op: 'add', path: '/10', value: { data: { id: 99 } } },
      { op: 'replace', path: '/20/data/id', value: 101 },
    ])
  })

  test('a huge, thoroughly different array is still diffed quickly and correctly', () => {
    const live = Array.from({ length: 40_000 }, (_, i) => i)
    const shadow = Array.from({ length: 40_000 }, (_, i) => (i * 7919) % 40_001)
    const started = performance.now()
    const patch = compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)
    expect(performance.now() - started).toBeLessThan(2000)
    expect(apply(live, patch)).toEqual(shadow)
  })
})

describe('compareDocuments: float_tolerance', () => {
  const cases: Array<[string, unknown, unknown, number, PatchOp[]]> = [
    ['within tolerance', { v: 1.0 }, { v: 1.05 }, 0.1, []],
    ['beyond tolerance', { v: 1.0 }, { v: 1.2 }, 0.1, [{ op: 'replace', path: '/v', value: 1.2 }]],
    [
      'exactly the tolerance apart is equal (differ only if |a - b| > t)',
      { v: 1 },
      { v: 1.5 },
      0.5,
      [],
    ],
    ['integers too', { v: 10 }, { v: 11 }, 1, []],
    [
      '0 means exact',
      { v: 1 },
      { v: 1.0000001 },
      0,
      [{ op: 'replace', path: '/v', value: 1.0000001 }],
    ],
    [
      'strings are never tolerated',
      { v: '1.0' },
      { v: '1.05' },
      0.1,
      [{ op: 'replace', path: '/v', value: '1.05' }],
    ],
    ['inside arrays', { v: [1.0, 2.0] }, { v: [1.01, 2.01] }, 0.1, []],
    [
      'an insertion among tolerated numbers is one add',
      { v: [1, 2, 3] },
      { v: [1, 9, 2.01, 3] },
      0.1,
      [{ op: 'add', path: '/v/1', value: 9 }],
    ],
    [
      'numbers split by a bucket edge at both ends are trimmed (fast-check counterexample)',
      [1, 0],
      [1.9909422099590304, -0.4344868646003307],
      2.0000000000000004,
      [],
    ],
    [
      'numbers split by a bucket edge between differing ends: no crossed anchor',
      ['a', 1, 0, 'b'],
      ['c', 1.9909422099590304, -0.4344868646003307, 'd'],
      2.0000000000000004,
      [
        { op: 'replace', path: '/0', value: 'c' },
        { op: 'replace', path: '/3', value: 'd' },
      ],
    ],
    [
      'records split by a bucket edge between differing ends',
      ['a', { x: 1 }, { x: 0 }, 'b'],
      ['c', { x: 1.99 }, { x: -0.43 }, 'd'],
      2.0000000000000004,
      [
        { op: 'replace', path: '/0', value: 'c' },
        { op: 'replace', path: '/3', value: 'd' },
      ],
    ],
    [
      'a shifted element stays an add and a remove when position would pair nothing',
      ['a', 1, 5, 'b'],
      ['c', 9, 1, 'd'],
      0.5,
      [
        { op: 'replace', path: '/0', value: 'c' },
        { op: 'add', path: '/1', value: 9 },
        { op: 'replace', path: '/3', value: 'd' },
        { op: 'remove', path: '/4' },
      ],
    ],
    [
      'a negative tolerance means exact',
      { v: 1 },
      { v: 1.01 },
      -1,
      [{ op: 'replace', path: '/v', value: 1.01 }],
    ],
  ]
  test.each(cases)('%s', (_, live, shadow, tolerance, ops) => {
    expect(compareDocuments(live, shadow, config({ float_tolerance: tolerance }))).toEqual(ops)
  })
})

describe('compareDocuments: sort_arrays', () => {
  const sorted = config({ sort_arrays: true })
  test.each([
    ['numbers', [3, 1, 2], [1, 2, 3]],
    ['strings', ['b', 'a', 'c'], ['c', 'b', 'a']],
    [
      'nested arrays, inner and outer order',
      [
        [2, 1],
        [4, 3],
      ],
      [
        [3, 4],
        [1, 2],
      ],
    ],
    ['objects', [{ a: 1 }, { b: 2 }], [{ b: 2 }, { a: 1 }]],
    ['mixed types', [1, '1', null, true, {}, [], false], [[], false, {}, true, null, '1', 1]],
    ['numbers that sort differently as text', [10, 9, 100], [100, 9, 10]],
    ['arrays deep inside objects', { a: { b: [[1, [3, 2]], 0] } }, { a: { b: [0, [[2, 3], 1]] } }],
  ])('any order of %s is a match', (_, live, shadow) => {
    expect(compareDocuments(live, shadow, sorted)).toEqual([])
    expect(compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)).not.toEqual([])
  })

  test('a real difference shows on the sorted arrays', () => {
    expect(compareDocuments({ v: [3, 1, 2] }, { v: [4, 2, 1] }, sorted)).toEqual([
      { op: 'replace', path: '/v/2', value: 4 },
    ])
  })

  test('elements that differ only in an ignored field still sort together', () => {
    const live = {
      body: [
        { a_seen: 1, id: 1 },
        { a_seen: 2, id: 2 },
      ],
    }
    const shadow = {
      body: [
        { a_seen: 9, id: 1 },
        { a_seen: 0, id: 2 },
      ],
    }
    expect(
      compareDocuments(
        live,
        shadow,
        config({ sort_arrays: true, ignored_fields: ['body.#.a_seen'] }),
      ),
    ).toEqual([])
  })

  test('inputs are not modified by sorting', () => {
    const live = { v: [3, 1, 2] }
    compareDocuments(live, { v: [1] }, sorted)
    expect(live).toEqual({ v: [3, 1, 2] })
  })
})

describe('compareDocuments: ignored_fields and included_fields', () => {
  type FilterCase = [string, Partial<DiffConfig>, unknown, unknown, PatchOp[]]
  const cases: FilterCase[] = [
    [
      'an ignored field never differs',
      { ignored_fields: ['body.updated_at'] },
      { body: { updated_at: 1, x: 1 } },
      { body: { updated_at: 2, x: 1 } },
      [],
    ],
    [
      'an ignored field may exist on one side only',
      { ignored_fields: ['body.updated_at'] },
      { body: { updated_at: 1 } },
      { body: {} },
      [],
    ],
    [
      'ignoring a field ignores everything below it',
      { ignored_fields: ['body.meta'] },
      { body: { meta: { a: 1 } } },
      { body: { meta: { a: 2, b: [] } } },
      [],
    ],
    [
      '** ignores a field at any depth',
      { ignored_fields: ['body.**.updated_at'] },
      { body: { updated_at: 1, items: [{ updated_at: 1, v: 1 }] } },
      { body: { updated_at: 2, items: [{ updated_at: 2, v: 2 }] } },
      [{ op: 'replace', path: '/body/items/0/v', value: 2 }],
    ],
    [
      '# ignores a field in every element',
      { ignored_fields: ['body.items.#.price'] },
      { body: { items: [{ price: 1 }, { price: 2 }] } },
      { body: { items: [{ price: 3 }, { price: 4 }] } },
      [],
    ],
    ['status can be ignored', { ignored_fields: ['status'] }, { status: 200 }, { status: 500 }, []],
    [
      'a header path matches case-insensitively',
      { ignored_fields: ['headers.x-trace'] },
      { headers: { 'X-Trace': ['a'] } },
      { headers: { 'X-Trace': ['b'] } },
      [],
    ],
    [
      'a body key does not match case-insensitively',
      { ignored_fields: ['body.x-trace'] },
      { body: { 'X-Trace': 1 } },
      { body: { 'X-Trace': 2 } },
      [{ op: 'replace', path: '/body/X-Trace', value: 2 }],
    ],
    [
      'an added value loses its ignored fields',
      { ignored_fields: ['body.**.updated_at'] },
      { body: { items: [] } },
      { body: { items: [{ id: 1, updated_at: 5 }] } },
      [{ op: 'add', path: '/body/items/0', value: { id: 1 } }],
    ],
    [
      'an insertion among records that differ only in ignored fields is one add',
      { ignored_fields: ['body.#.seen'] },
      {
        body: [
          { id: 1, seen: 1 },
          { id: 2, seen: 1 },
          { id: 3, seen: 1 },
        ],
      },
      {
        body: [
          { id: 1, seen: 2 },
          { id: 0, seen: 2 },
          { id: 2, seen: 2 },
          { id: 3, seen: 2 },
        ],
      },
      [{ op: 'add', path: '/body/1', value: { id: 0 } }],
    ],
    [
      'included: everything else is ignored',
      { included_fields: ['body.user'] },
      { status: 200, body: { user: { n: 1 }, other: 1 } },
      { status: 500, body: { user: { n: 1 }, other: 2 } },
      [],
    ],
    [
      'included: a change inside is reported',
      { included_fields: ['body.user'] },
      { body: { user: { n: 1 } } },
      { body: { user: { n: 2 } } },
      [{ op: 'replace', path: '/body/user/n', value: 2 }],
    ],
    [
      'included first, then ignored',
      { included_fields: ['body.user'], ignored_fields: ['body.user.seen'] },
      { body: { user: { n: 1, seen: 1 } } },
      { body: { user: { n: 1, seen: 2 } } },
      [],
    ],
    [
      'included: a container on the way is not itself compared',
      { included_fields: ['body.user.name'] },
      { body: {} },
      { body: { user: { age: 3 } } },
      [],
    ],
    [
      'included: a container on the way carries only included parts',
      { included_fields: ['body.user.name'] },
      { body: {} },
      { body: { user: { name: 'n', age: 3 } } },
      [{ op: 'add', path: '/body/user', value: { name: 'n' } }],
    ],
    [
      'included: losing an included field is a remove of its container',
      { included_fields: ['body.user.name'] },
      { body: { user: { name: 'n' } } },
      { body: {} },
      [{ op: 'remove', path: '/body/user' }],
    ],
    [
      'included with wildcards',
      { included_fields: ['body.items.#.id'] },
      { body: { items: [{ id: 1, v: 1 }] } },
      { body: { items: [{ id: 2, v: 2 }] } },
      [{ op: 'replace', path: '/body/items/0/id', value: 2 }],
    ],
    [
      'included status only',
      { included_fields: ['status'] },
      { status: 200, headers: { A: ['1'] } },
      { status: 201, headers: { A: ['2'] } },
      [{ op: 'replace', path: '/status', value: 201 }],
    ],
  ]
  test.each(cases)('%s', (_, overrides, live, shadow, ops) => {
    expect(compareDocuments(live, shadow, config(overrides))).toEqual(ops)
  })
})

describe('compareDocuments: depth guard', () => {
  function nested(levels: number, leaf: unknown): unknown {
    let value: unknown = leaf
    for (let i = 0; i < levels; i++) value = i % 2 === 0 ? [value] : { k: value }
    return value
  }

  test.each([1_000, 100_000])('%d levels of nesting neither throw nor overflow', (levels) => {
    const live = nested(levels, 1)
    const shadow = nested(levels, 2)
    expect(compareDocuments(live, nested(levels, 1), DEFAULT_DIFF_CONFIG)).toEqual([])
    const ops = compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)
    expect(ops).toHaveLength(1)
    // Past the bound the subtree is compared, and reported, as text.
    expect(ops[0]!.op).toBe('replace')
    expect(typeof ops[0]!.value).toBe('string')
    expect(() => JSON.stringify(ops)).not.toThrow()
  })

  test('a deep added value is cut to text so the patch stays serialisable', () => {
    const ops = compareDocuments({}, { deep: nested(200_000, 0) }, DEFAULT_DIFF_CONFIG)
    expect(ops).toHaveLength(1)
    expect(() => JSON.stringify(ops)).not.toThrow()
  })

  test('ignored fields past the bound neither differ nor show in the text', () => {
    const config = { ...DEFAULT_DIFF_CONFIG, ignored_fields: ['body.**.seen'] }
    const live = { body: nested(400, { a: 1, seen: 1 }) }
    expect(compareDocuments(live, { body: nested(400, { a: 1, seen: 2 }) }, config)).toEqual([])
    const ops = compareDocuments(live, { body: nested(400, { a: 2, seen: 'secret' }) }, config)
    expect(ops).toHaveLength(1)
    expect(ops[0]!.value).toContain('"a":2')
    expect(ops[0]!.value).not.toContain('secret')
  })

  test('subtrees past the bound are compared regardless of key order', () => {
    const live = nested(400, { a: 1, b: 2 })
    const shadow = nested(400, { b: 2, a: 1 })
    expect(compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)).toEqual([])
  })
})
