import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { compileDiffConfig, formatPointer, parseFieldPath, PathFilter } from '../../../src/diff/index.ts'
import { SKIPPED } from '../../../src/diff/path-filter.ts'
import { fieldPathOf, generalisedPath, ignoredBy } from '../../../src/insights/index.ts'

describe('fieldPathOf', () => {
  test.each([
    ['/body/items/*/updated_at', 'body.items.#.updated_at'],
    ['/body/stock/{key}/reserved', 'body.stock.*.reserved'],
    ['/body/request_id', 'body.request_id'],
    ['/headers/X-Request-Id', 'headers.X-Request-Id'],
    ['/status', 'status'],
    ['/body/a.b', 'body.a\\.b'],
    ['/body/a~1b', 'body.a/b'],
    ['/body/wild*card?', 'body.wild\\*card\\?'],
    ['/body/#', 'body.\\#'],
    ['/body/back\\slash', 'body.back\\\\slash'],
    ['/body/**', 'body.\\*\\*'],
  ])('%p is %p', (path, field) => {
    expect(fieldPathOf(path)).toBe(field)
  })

  test.each(['', 'body/x', '/elsewhere/x', '/body//x', '/body/x/'])('%p has no field path', (path) => {
    expect(fieldPathOf(path)).toBeUndefined()
  })

  const token = fc.oneof(
    fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !s.includes('\0')),
    fc.integer({ min: 0, max: 999 }).map(String),
    fc.constantFrom('updated_at', 'sku-15028', '3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b', 'a.b', '#', '*', '**', 'x?y', '\\'),
  )

  /** Whether a concrete pointer is left out by a path filter, as a comparison walks it. */
  function skips(filter: PathFilter, pointer: string[]): boolean {
    let step: ReturnType<PathFilter['child']> = filter.root
    for (const key of pointer) {
      if (step === undefined) return false
      if (step === SKIPPED) return true
      step = filter.child(step, key)
    }
    return step === SKIPPED
  }

  test('a suggested path parses, and as an ignored field leaves out the concrete paths it was generalised from', () => {
    fc.assert(
      fc.property(fc.constantFrom('body', 'headers'), fc.array(token, { minLength: 1, maxLength: 5 }), (root, tokens) => {
        const concrete = [root, ...tokens]
        const general = generalisedPath(formatPointer(concrete))
        const field = fieldPathOf(general)!
        expect(field).toBeDefined()
        expect(() => parseFieldPath(field)).not.toThrow()
        const filter = compileDiffConfig({ ignored_fields: [field], included_fields: [], float_tolerance: 0, sort_arrays: false }).filter!
        expect(skips(filter, concrete)).toBe(true)
        expect(ignoredBy(compileDiffConfig({ ignored_fields: [field], included_fields: [], float_tolerance: 0, sort_arrays: false }), general)).toBe(true)
      }),
    )
  })
})

describe('ignoredBy', () => {
  const config = (ignored: string[], included: string[] = []) =>
    compileDiffConfig({ ignored_fields: ignored, included_fields: included, float_tolerance: 0, sort_arrays: false })

  test.each<[string[], string[], string, boolean]>([
    [[], [], '/body/updated_at', false],
    [['body.updated_at'], [], '/body/updated_at', true],
    [['body.**.updated_at'], [], '/body/items/*/updated_at', true],
    [['body.items.#.updated_at'], [], '/body/items/*/updated_at', true],
    [['body.stock.*.reserved'], [], '/body/stock/{key}/reserved', true],
    [['body.items'], [], '/body/items/*/updated_at', true],
    [['headers.x-request-id'], [], '/headers/X-Request-Id', true],
    [['body.other'], [], '/body/updated_at', false],
    [[], ['body.price'], '/body/updated_at', true],
    [[], ['body.price'], '/body/price', false],
  ])('ignored %p, included %p: %s left out is %p', (ignored, included, path, expected) => {
    expect(ignoredBy(config(ignored, included), path)).toBe(expected)
  })
})
