import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { spliceJson } from '../../../src/diff/json-splice.ts'
import { compareResponses, compileCaptureOptions, compareDocuments, DEFAULT_DIFF_CONFIG, processCapture } from '../../../src/diff/index.ts'
import { comparedHeaders } from '../../../src/diff/headers.ts'
import { comparisonOf } from '../../../src/diff/comparison.ts'
import { edited, json, type Json } from './json-arbitraries.ts'

const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text)

/** The splice of `shadow` from `live`'s parse, or undefined. */
function splice(live: string, shadow: string): unknown {
  return spliceJson(bytes(live), JSON.parse(live.replace(/^\uFEFF/, '')), bytes(shadow))
}

/**
 * What JSON.parse makes of the whole shadow, to compare a splice with:
 * the same members in the same order (JSON.stringify keeps the order).
 */
function expectWholeParse(spliced: unknown, shadow: string): void {
  expect(JSON.stringify(spliced)).toBe(JSON.stringify(JSON.parse(shadow.replace(/^\uFEFF/, ''))))
}

/** JSON text of a value, compact or with random whitespace between tokens (same layout for live and shadow). */
function written(value: Json, spaced: boolean): string {
  return spaced ? JSON.stringify(value, null, 2) : JSON.stringify(value)
}

/**
 * Live and shadow texts of a document whose shadow has random edits inside
 * one element of a list, as a candidate's answer differs from live's.
 */
const deepEdit: fc.Arbitrary<[string, string]> = fc
  .tuple(json, fc.array(json, { minLength: 1, maxLength: 4 }), fc.nat(), fc.integer(), json, fc.boolean())
  .map(([head, items, at, seed, extra, spaced]): [string, string] => {
    const live = { head, body: { items: items.map((item) => ({ item })), n: items.length }, tail: head, pad: '' }
    const shadow = structuredClone(live)
    const index = at % items.length
    shadow.body.items[index] = { item: edited(items[index]!, seed, extra) }
    // Trailing members four times the rest keep the change in the first
    // quarters, where the splice looks for it.
    live.pad = shadow.pad = '.'.repeat(4 * written(shadow, spaced).length)
    return [written(live, spaced), written(shadow, spaced)]
  })
  .filter(([live, shadow]) => live !== shadow)

describe('spliceJson', () => {
  test('one field changed deep inside: the splice is the whole parse, and live is left alone', () => {
    const live = JSON.stringify({ data: [{ id: 1, price: 1.5, tags: ['a'] }, { id: 2, price: 2.5, tags: ['b'] }], page: { n: 1 } })
    const shadow = live.replace('2.5', '9.75')
    const liveValue = JSON.parse(live)
    const before = JSON.stringify(liveValue)
    const spliced = spliceJson(bytes(live), liveValue, bytes(shadow)) as { data: unknown[]; page: unknown }
    expect(spliced).toBeDefined()
    expectWholeParse(spliced, shadow)
    expect(JSON.stringify(liveValue)).toBe(before)
    // Only the path is copied: the rest is live's own objects.
    expect(spliced.data[0]).toBe(liveValue.data[0])
    expect(spliced.page).toBe(liveValue.page)
  })

  test.each([
    ['a change the root alone holds', '{"a":1,"b":2}', '{"a":1,"b":3}'],
    ['members of the root apart', '{"a":{"x":1},"b":{"y":2}}', '{"a":{"x":0},"b":{"y":0}}'],
    ['changes spread over the body', '{"a":{"x":1,"y":"abcdefghij"},"b":0}', '{"a":{"x":2,"y":"abcdefghiJ"},"b":0}'],
    ['an element added before the one that changed', '{"a":[{"x":1},{"x":2}],"pad":"................"}', '{"a":[{"x":0},{"x":1},{"x":2}],"pad":"................"}'],
    ['a top-level scalar', '12', '13'],
    ['a top-level array element', '[1,2,3]', '[1,5,3]'],
    ['identical text', '{"a":{"b":1}}', '{"a":{"b":1}}'],
    // JSON.parse keeps the later "a": the change in the earlier one is no change.
    ['a key given again after the change', '{"a":{"x":1},"a":{"x":2}}', '{"a":{"x":5},"a":{"x":2}}'],
    ['a key given again with escapes', '{"a":{"x":1},"\\u0061":{"x":2}}', '{"a":{"x":5},"\\u0061":{"x":2}}'],
    ['an escaped key given again plainly', '{"\\u0061":{"x":1},"a":{"x":2}}', '{"\\u0061":{"x":5},"a":{"x":2}}'],
    ['a repeated key deeper down the path', '{"r":{"a":{"x":1},"a":{"x":2}},"z":0}', '{"r":{"a":{"x":5},"a":{"x":2}},"z":0}'],
    ['__proto__ on the path', '{"__proto__":{"x":1},"b":0}', '{"__proto__":{"x":2},"b":0}'],
    ['a shadow span that is not one value', '{"a":[1,2],"b":0}', '{"a":[1],[2],"b":0}'],
    ['a shadow that is not JSON', '{"a":{"b":1}}', '{"a":{"b":1,}}'],
  ])('undefined (whole parse) for %s', (_, live, shadow) => {
    expect(splice(live, shadow)).toBeUndefined()
  })

  test('undefined for a shadow span that is not UTF-8', () => {
    const live = '{"a":{"b":"x"},"c":0}'
    const shadow = bytes(live)
    shadow[live.indexOf('x')] = 0xff
    expect(spliceJson(bytes(live), JSON.parse(live), shadow)).toBeUndefined()
  })

  test('a key repeated in another element of an array on the path does not stop the splice', () => {
    const live = JSON.stringify({ items: [{ v: { x: 1 } }, { v: { x: 2 } }, { v: { x: 3 } }], total: 3 })
    const shadow = live.replace('"x":2', '"x":20')
    const spliced = splice(live, shadow)
    expect(spliced).toBeDefined()
    expectWholeParse(spliced, shadow)
  })

  test.each([
    // "x" comes again (as a value), so the rest of the root is read: z's "a" is not x's.
    ['in another object', '{"x":{"a":{"c":1}},"z":{"a":"x"}}', '{"x":{"a":{"c":2}},"z":{"a":"x"}}'],
    ['deeper down', '{"a":{"b":{"c":1}},"z":{"a":{"q":1}}}', '{"a":{"b":{"c":2}},"z":{"a":{"q":1}}}'],
  ])('the same key later %s is not a repeat', (_, live, shadow) => {
    const spliced = splice(live, shadow)
    expect(spliced).toBeDefined()
    expectWholeParse(spliced, shadow)
  })

  test('escapes, non-ASCII text and a byte order mark before the change', () => {
    const live = `\uFEFF{"ключ\\"":{"s":"a\\\\\\"[{"},"é😀":[{"n":1},{"n":2}],"\\u0062":{"v":"ü"},"pad":"${'.'.repeat(300)}"}`
    for (const shadow of [live.replace('"n":2', '"n":3'), live.replace('"v":"ü"', '"v":"üü"'), live.replace('"s":"a', '"s":"b')]) {
      const spliced = splice(live, shadow)
      expect(spliced).toBeDefined()
      expectWholeParse(spliced, shadow)
    }
  })

  test('a change that reaches outside the innermost container splices its parent', () => {
    const rest = `"z":"${'x'.repeat(40)}"`
    const live = `{"r":{"a":[1,2],"b":[3]},${rest}}`
    const shadow = `{"r":{"a":[1,9],"b":[4]},${rest}}`
    const spliced = splice(live, shadow)
    expect(spliced).toBeDefined()
    expectWholeParse(spliced, shadow)
  })

  test('property: any edit of any value gives the whole parse or undefined', () => {
    fc.assert(
      fc.property(json, fc.integer(), json, fc.boolean(), (live, seed, extra, spaced) => {
        const liveText = written(live, spaced)
        const shadowText = written(edited(live, seed, extra), spaced)
        const spliced = spliceJson(bytes(liveText), JSON.parse(liveText), bytes(shadowText))
        if (spliced !== undefined) expectWholeParse(spliced, shadowText)
      }),
      { numRuns: 3000 },
    )
  })

  test('property: edits deep inside a larger document give the whole parse (and mostly a splice)', () => {
    let spliced = 0
    let runs = 0
    fc.assert(
      fc.property(deepEdit, ([liveText, shadowText]) => {
        runs++
        const result = spliceJson(bytes(liveText), JSON.parse(liveText), bytes(shadowText))
        if (result === undefined) return
        spliced++
        expectWholeParse(result, shadowText)
      }),
      { numRuns: 2000 },
    )
    // Every such edit is inside one element; only repeats of a key on the path fall back.
    expect(spliced).toBeGreaterThan(runs * 0.9)
  })

  test('property: any text edit gives the whole parse, or undefined when the shadow does not parse', () => {
    const edit = fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom('', '1', '"', ',', '{', '}', '[', ']', ':', '\\', 'a', ' ', '"k":', '{"a":1,"a":2}', 'é'))
    fc.assert(
      fc.property(json, fc.array(edit, { minLength: 1, maxLength: 3 }), (live, edits) => {
        const liveText = JSON.stringify(live)
        let shadowText = liveText
        for (const [at, cut, insert] of edits) {
          const position = at % (shadowText.length + 1)
          shadowText = shadowText.slice(0, position) + insert + shadowText.slice(position + cut)
        }
        const spliced = spliceJson(bytes(liveText), JSON.parse(liveText), bytes(shadowText))
        let whole: unknown
        try {
          whole = JSON.parse(shadowText)
        } catch {
          expect(spliced).toBeUndefined()
          return
        }
        if (spliced !== undefined) expect(JSON.stringify(spliced)).toBe(JSON.stringify(whole))
      }),
      { numRuns: 3000 },
    )
  })

  test('property: a key given twice in any object on the path never lets the earlier one count', () => {
    const key = fc.constantFrom('a', 'b', '\\u0061')
    fc.assert(
      fc.property(key, key, fc.nat({ max: 9 }), fc.nat({ max: 9 }), (first, second, x, y) => {
        const live = `{"w":{"${first}":{"x":${x}},"${second}":{"x":1}},"z":0}`
        const shadow = `{"w":{"${first}":{"x":${y}},"${second}":{"x":1}},"z":0}`
        const spliced = splice(live, shadow)
        if (spliced !== undefined) expectWholeParse(spliced, shadow)
      }),
    )
  })

  test('it splices what a candidate usually sends: one value changed in a list (in its first three quarters)', () => {
    fc.assert(
      fc.property(fc.nat({ max: 14 }), fc.double({ noNaN: true, noDefaultInfinity: true }), (item, price) => {
        const document = { data: Array.from({ length: 20 }, (_, i) => ({ id: i, price: i / 4, tags: ['x'] })), total: 20 }
        const live = JSON.stringify(document)
        document.data[item]!.price = price === item / 4 ? price + 1 : price
        const shadow = JSON.stringify(document)
        const spliced = splice(live, shadow)
        expect(spliced).toBeDefined()
        expectWholeParse(spliced, shadow)
      }),
    )
  })
})

describe('compareResponses with the splice', () => {
  const compiled = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [], maxBodyBytes: 0 })
  const headers = { 'Content-Type': ['application/json'] }

  const anyEdit = fc
    .tuple(json, fc.integer(), json, fc.boolean())
    .map(([live, seed, extra, spaced]): [string, string] => [written(live, spaced), written(edited(live, seed, extra), spaced)])

  test('property: the same verdict and patch as comparing both documents parsed whole', () => {
    fc.assert(
      fc.property(fc.oneof(anyEdit, deepEdit), ([liveText, shadowText]) => {
        const got = compareResponses({ status: 200, headers, body: bytes(liveText) }, { status: 200, headers, body: bytes(shadowText) }, compiled)
        const document = (text: string) => ({ status: 200, headers: comparedHeaders(headers), body: JSON.parse(text) as unknown })
        const expected = liveText === shadowText ? comparisonOf([]) : comparisonOf(compareDocuments(document(liveText), document(shadowText), compiled.diff))
        expect(got).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  test('property: processCapture, which redacts parsed bodies in place, compares as compareResponses does', () => {
    const redacting = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: ['body.tail', 'body.body.n', 'body.body.items.#.item'], maxBodyBytes: 0 })
    fc.assert(
      fc.property(fc.oneof(anyEdit, deepEdit), ([liveText, shadowText]) => {
        const live = { status: 200, headers, body: bytes(liveText) }
        const shadow = { status: 200, headers, body: bytes(shadowText) }
        const stored = processCapture({ request: { headers: {}, body: new Uint8Array() }, live, shadow }, redacting)
        expect(stored.comparison).toEqual(compareResponses(live, shadow, redacting))
      }),
      { numRuns: 1000 },
    )
  })
})
