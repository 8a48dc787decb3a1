import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { applyPatch, type Operation } from 'fast-json-patch'
import {
  compareDocuments,
  DEFAULT_DIFF_CONFIG,
  parsePointer,
  type DiffConfig,
  type PatchOp,
} from '../../../src/diff/index.ts'
import { sortArraysDeep } from '../../../src/diff/canonical.ts'
import {
  allPaths,
  json,
  pair,
  perturbed,
  referenceCovers,
  renderPath,
  shuffled,
  type Json,
  type Segment,
} from './json-arbitraries.ts'

const RUNS = { numRuns: 400 }

/** fast-json-patch, an independent RFC 6902 implementation, applies the patch in order. */
function apply(document: unknown, ops: PatchOp[]): unknown {
  return applyPatch(structuredClone(document), structuredClone(ops) as Operation[], true, true)
    .newDocument
}

/** The same value with every array sorted by a canonical order of its own (for sort_arrays). */
function sortedDeep(value: Json): Json {
  if (typeof value !== 'object' || value === null) return value
  if (Array.isArray(value)) {
    return value
      .map(sortedDeep)
      .sort((x, y) => (canonical(x) < canonical(y) ? -1 : canonical(x) > canonical(y) ? 1 : 0))
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, sortedDeep(v)]))
}
function canonical(value: Json): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value)
  if (Array.isArray(value)) return '[' + value.map(canonical).join(',') + ']'
  return (
    '{' +
    Object.keys(value)
      .sort()
      .map((k) => JSON.stringify(k) + ':' + canonical(value[k]!))
      .join(',') +
    '}'
  )
}

describe('diff properties (fast-check)', () => {
  test('applying the patch to live with fast-json-patch gives shadow', () => {
    fc.assert(
      fc.property(pair, ([live, shadow]) => {
        expect(apply(live, compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG))).toEqual(shadow)
      }),
      { numRuns: 1500 },
    )
  })

  test('the patch applies inside the response document too', () => {
    fc.assert(
      fc.property(pair, fc.integer({ min: 100, max: 599 }), ([live, shadow], status) => {
        const liveDoc = {
          status: 200,
          headers: { 'Content-Type': ['application/json'] },
          body: live,
        }
        const shadowDoc = {
          status,
          headers: { 'Content-Type': ['application/json'] },
          body: shadow,
        }
        expect(apply(liveDoc, compareDocuments(liveDoc, shadowDoc, DEFAULT_DIFF_CONFIG))).toEqual(
          shadowDoc,
        )
      }),
      RUNS,
    )
  })

  test('every path is a valid RFC 6901 pointer into the document being patched', () => {
    fc.assert(
      fc.property(pair, ([live, shadow]) => {
        for (const op of compareDocuments(live, shadow, DEFAULT_DIFF_CONFIG)) {
          expect(op.path === '' || op.path.startsWith('/')).toBe(true)
          expect(op.path).not.toMatch(/~[^01]|~$/)
          expect('value' in op).toBe(op.op !== 'remove')
        }
      }),
      RUNS,
    )
  })

  test('compare(x, x) is a match, for the same and for an equal copy', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(compareDocuments(value, value, DEFAULT_DIFF_CONFIG)).toEqual([])
        expect(compareDocuments(value, structuredClone(value), DEFAULT_DIFF_CONFIG)).toEqual([])
      }),
      RUNS,
    )
  })

  test('with sort_arrays, any permutation of arrays is a match', () => {
    const config: DiffConfig = { ...DEFAULT_DIFF_CONFIG, sort_arrays: true }
    fc.assert(
      fc.property(json, fc.integer(), (value, seed) => {
        expect(compareDocuments(value, shuffled(value, seed), config)).toEqual([])
      }),
      RUNS,
    )
  })

  test('with sort_arrays, the patch turns sorted live into sorted shadow', () => {
    const config: DiffConfig = { ...DEFAULT_DIFF_CONFIG, sort_arrays: true }
    fc.assert(
      fc.property(pair, ([live, shadow]) => {
        const ops = compareDocuments(live, shadow, config)
        expect(apply(sortArraysDeep(live, undefined), ops)).toEqual(
          sortArraysDeep(shadow, undefined),
        )
        // The engine's sort only reorders arrays.
        expect(sortedDeep(sortArraysDeep(live, undefined) as Json)).toEqual(sortedDeep(live))
      }),
      RUNS,
    )
  })

  test('with tolerance t, moving numbers by less than t is a match', () => {
    fc.assert(
      fc.property(
        json,
        fc.integer(),
        fc.double({ min: 1e-6, max: 100, noNaN: true }),
        (value, seed, tolerance) => {
          // Less than t/2: floating-point addition may round the move up to twice its size.
          const moved = perturbed(value, seed, tolerance / 2)
          expect(
            compareDocuments(value, moved, { ...DEFAULT_DIFF_CONFIG, float_tolerance: tolerance }),
          ).toEqual([])
        },
      ),
      RUNS,
    )
  })

  test('with tolerance t, numbers moved by less than t between differing ends change only the ends', () => {
    // The ends stop the trimming, so the moved middle goes through the
    // alignment, whose tolerance buckets split near-equal numbers.
    const middle = fc.array(
      fc.oneof(
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.record({ x: fc.double({ min: -10, max: 10, noNaN: true }) }),
      ),
      { maxLength: 20 },
    )
    fc.assert(
      fc.property(
        middle,
        fc.integer(),
        fc.double({ min: 1e-3, max: 5, noNaN: true }),
        (items, seed, tolerance) => {
          const live = ['first', ...items, 'last']
          const shadow = ['FIRST', ...(perturbed(items, seed, tolerance / 2) as Json[]), 'LAST']
          const config = { ...DEFAULT_DIFF_CONFIG, float_tolerance: tolerance }
          expect(compareDocuments(live, shadow, config)).toEqual([
            { op: 'replace', path: '/0', value: 'FIRST' },
            { op: 'replace', path: `/${items.length + 1}`, value: 'LAST' },
          ])
        },
      ),
      RUNS,
    )
  })

  test('ignored paths never appear in the patch, neither as paths nor inside values', () => {
    const scenario = pair.chain(([liveBody, shadowBody]) => {
      const live = { status: 200, body: liveBody }
      const shadow = { status: 201, body: shadowBody }
      const candidates = [...allPaths(live), ...allPaths(shadow)].filter(
        (path) => path.length > 0 && path.every((token) => token !== ''),
      )
      const pattern = fc
        .tuple(fc.constantFrom(...candidates), fc.boolean(), fc.nat(8))
        .map(([path, globstar, star]) => toPattern(path, globstar, star))
      return fc.tuple(
        fc.constant(live),
        fc.constant(shadow),
        fc.array(pattern, { minLength: 1, maxLength: 3 }),
      )
    })
    fc.assert(
      fc.property(scenario, ([live, shadow, patterns]) => {
        const config: DiffConfig = {
          ...DEFAULT_DIFF_CONFIG,
          ignored_fields: patterns.map(renderPath),
        }
        for (const op of compareDocuments(live, shadow, config)) {
          const path = parsePointer(op.path)
          expect(referenceCovers(patterns, path)).toBe(false)
          if (op.op === 'remove') continue
          for (const inner of allPaths(op.value)) {
            expect(referenceCovers(patterns, [...path, ...inner])).toBe(false)
          }
        }
      }),
      RUNS,
    )
  })
})

/**
 * A pattern naming `path`, made more general: indices become `#` (indices
 * inside pruned values shift, so patterns here never name one index), one
 * inner token may become `*`, and the tokens after the root may become `**`.
 */
function toPattern(path: string[], globstar: boolean, star: number): Segment[] {
  const segments: Segment[] = path.map((token) => (/^\d+$/.test(token) ? '#' : { literal: token }))
  if (star > 0 && star < segments.length - 1) segments[star] = '*'
  if (globstar && segments.length > 2) segments.splice(1, segments.length - 2, '**')
  return segments
}
