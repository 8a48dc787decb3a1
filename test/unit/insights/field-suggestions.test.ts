import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { classifyField, fieldSuggestions, type FieldRow, type ValueShape } from '../../../src/insights/index.ts'

const row = (over: Partial<FieldRow>): FieldRow => ({
  method: 'GET',
  template: '/items/{id}',
  op: 'replace',
  path: '/body/x',
  count: 100,
  requests: 100,
  noiseChecks: 0,
  noiseCount: 0,
  ...over,
})
const timestamps: ValueShape[] = Array(20).fill('timestamp')

function suggest(rows: FieldRow[], shapes: (row: FieldRow) => readonly ValueShape[] = () => [], ignored: string[] = []) {
  return fieldSuggestions({ rows, shapesOf: shapes, isIgnored: (path) => ignored.includes(path) })
}

describe('fieldSuggestions', () => {
  test('a noise field is suggested with its evidence and endpoint, as a pasteable path', () => {
    const out = suggest([row({ path: '/body/items/*/request_id', noiseChecks: 40, noiseCount: 40 })])
    expect(out).toEqual([
      {
        field: 'body.items.#.request_id',
        reason: 'noise',
        evidence: { requests: 100, count: 100, rate: 1, noise_checks: 40, noise_count: 40, noise_rate: 1, shape: null, samples: 0 },
        endpoints: [{ method: 'GET', template: '/items/{id}' }],
      },
    ])
  })

  test.each<[string, FieldRow[], (row: FieldRow) => readonly ValueShape[], string[]]>([
    ['a real field', [row({ noiseChecks: 40, noiseCount: 0 })], () => timestamps, []],
    ['a field real on one endpoint and noise on another', [
      row({ noiseChecks: 40, noiseCount: 40 }),
      row({ template: '/other', noiseChecks: 40, noiseCount: 0 }),
    ], () => [], []],
    ['a volatile-looking field with a few noise checks (not enough to decide, too many to ignore)', [row({ noiseChecks: 5 })], () => timestamps, []],
    ['a field that differs in only some captures', [row({ count: 60 })], () => timestamps, []],
    ['a field too rarely captured to tell', [row({ count: 5, requests: 5 })], () => timestamps, []],
    ['values that do not look volatile', [row({})], () => Array(20).fill('other'), []],
    ['too few sampled values', [row({})], () => ['timestamp', 'timestamp'], []],
    ['an added field (volatile is about replaced values)', [row({ op: 'add' })], () => timestamps, []],
    ['a whole body', [row({ path: '/body', noiseChecks: 40, noiseCount: 40 })], () => [], []],
    ['a field the gate already ignores', [row({ noiseChecks: 40, noiseCount: 40 })], () => [], ['/body/x']],
  ])('nothing for %s', (_what, rows, shapes, ignored) => {
    expect(suggest(rows, shapes, ignored)).toEqual([])
  })

  test('a volatile field names its predominant shape and the samples; endpoints are merged under one path', () => {
    const rows = [
      row({ path: '/body/stock/sku-1/updated_at' }),
      row({ template: '/orders/{id}', path: '/body/stock/{key}/updated_at', count: 40, requests: 40 }),
      row({ template: '/orders/{id}', path: '/body/stock/{key}/updated_at', op: 'add', count: 3, requests: 40 }),
    ]
    const out = suggest(rows, (r) => (r.template === '/orders/{id}' ? [...Array(18).fill('uuid'), 'timestamp', 'other'] : timestamps))
    expect(out.map((s) => [s.field, s.reason, s.evidence.shape, s.evidence.samples, s.evidence.count, s.endpoints.length])).toEqual([
      ['body.stock.sku-1.updated_at', 'volatile', 'timestamp', 20, 100, 1],
      ['body.stock.*.updated_at', 'volatile', 'uuid', 20, 40, 1],
    ])
  })

  test('noise before volatile, then by count, then by field', () => {
    const out = suggest(
      [
        row({ path: '/body/b', count: 50 }),
        row({ path: '/body/a', count: 100 }),
        row({ template: '/n', path: '/body/n', count: 10, requests: 10, noiseChecks: 20, noiseCount: 20 }),
        row({ path: '/body/c', count: 100 }),
      ],
      () => timestamps,
    )
    expect(out.map((s) => s.field)).toEqual(['body.n', 'body.a', 'body.c'])
  })

  test('never suggests a path any of whose rows is classified real', () => {
    const arbitraryRow = fc
      .record({
        template: fc.constantFrom('/a', '/b', '/c'),
        path: fc.constantFrom('/body/x', '/body/y', '/body/items/*/z'),
        op: fc.constantFrom('add' as const, 'remove' as const, 'replace' as const),
        requests: fc.integer({ min: 1, max: 500 }),
        noiseChecks: fc.integer({ min: 0, max: 100 }),
      })
      .chain((r) =>
        fc.record({
          method: fc.constant('GET'),
          template: fc.constant(r.template),
          path: fc.constant(r.path),
          op: fc.constant(r.op),
          requests: fc.constant(r.requests),
          count: fc.integer({ min: 1, max: r.requests }),
          noiseChecks: fc.constant(r.noiseChecks),
          noiseCount: fc.integer({ min: 0, max: r.noiseChecks }),
        }),
      )
    fc.assert(
      fc.property(fc.array(arbitraryRow, { maxLength: 12 }), (rows) => {
        const out = suggest(rows, () => timestamps)
        for (const s of out) {
          const paths = rows.filter((r) => `body.${r.path.slice(6).replace('*', '#').replaceAll('/', '.')}` === s.field)
          expect(paths.some((r) => classifyField(r) === 'real')).toBe(false)
        }
      }),
    )
  })
})
