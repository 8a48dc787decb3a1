import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { MAX_PREVIEW_EXAMPLES, MAX_PREVIEW_SIGNATURES, PreviewTally, type PreviewItem } from '../../../src/rediff/preview-tally.ts'

const item = (id: string, before: PreviewItem['before'], after: PreviewItem['after'], beforeSignature: string | null = null, afterSignature: string | null = null): PreviewItem => ({
  id,
  before,
  after,
  beforeSignature: before === 'diff' ? beforeSignature ?? 'sig-a' : null,
  afterSignature: after === 'diff' ? afterSignature ?? 'sig-a' : null,
})

describe('PreviewTally', () => {
  test('counts silenced, surfaced and unchanged captures; errors never change', () => {
    const tally = new PreviewTally()
    tally.add(item('1', 'diff', 'match'))
    tally.add(item('2', 'diff', 'diff', 'sig-a', 'sig-b'))
    tally.add(item('3', 'match', 'diff', null, 'sig-b'))
    tally.add(item('4', 'match', 'match'))
    tally.add(item('5', 'error', 'error'))
    expect(tally.result()).toEqual({
      examined: 5,
      diffs_before: 2,
      diffs_after: 2,
      silenced: 1,
      surfaced: 1,
      // As many on either side: by id.
      signatures: [
        { id: 'sig-a', summary: null, count_before: 2, count_after: 0 },
        { id: 'sig-b', summary: null, count_before: 0, count_after: 2 },
      ],
      examples: { silenced: ['1'], surfaced: ['3'] },
    })
  })

  test('keeps the first examples (the most recent, in the order added) and the busiest signatures', () => {
    const tally = new PreviewTally()
    for (let i = 0; i < 50; i++) tally.add(item(`s${i}`, 'diff', 'match', `sig-${String(i % 150).padStart(3, '0')}`))
    for (let i = 0; i < 300; i++) tally.add(item(`u${i}`, 'match', 'diff', null, `sig-${String(i % 150).padStart(3, '0')}`))
    const result = tally.result()
    expect(result.examples.silenced).toEqual(Array.from({ length: MAX_PREVIEW_EXAMPLES }, (_, i) => `s${i}`))
    expect(result.examples.surfaced).toHaveLength(MAX_PREVIEW_EXAMPLES)
    expect(result.signatures).toHaveLength(MAX_PREVIEW_SIGNATURES)
    expect(result.signatures[0]).toEqual({ id: 'sig-000', summary: null, count_before: 1, count_after: 2 })
  })

  test("an after signature's summary is asked for once, and kept; one only stored has none here", () => {
    const tally = new PreviewTally()
    let asked = 0
    const summarizeAfter = () => `GET /a: changed /body/x (${++asked})`
    for (let i = 0; i < 3; i++) tally.add({ ...item(`u${i}`, 'match', 'diff', null, 'sig-b'), summarizeAfter })
    tally.add(item('s', 'diff', 'match', 'sig-a'))
    expect(tally.result().signatures).toEqual([
      { id: 'sig-b', summary: 'GET /a: changed /body/x (1)', count_before: 0, count_after: 3 },
      { id: 'sig-a', summary: null, count_before: 1, count_after: 0 },
    ])
    expect(asked).toBe(1)
  })

  test('the counts add up whatever the captures', () => {
    const kind = fc.constantFrom('match' as const, 'diff' as const, 'error' as const)
    fc.assert(
      fc.property(fc.array(fc.tuple(kind, kind, fc.constantFrom('a', 'b', 'c')), { maxLength: 200 }), (captures) => {
        const tally = new PreviewTally()
        captures.forEach(([before, after, sig], i) => {
          // A failed side fails under every config.
          const b = before === 'error' || after === 'error' ? 'error' : before
          const a = before === 'error' || after === 'error' ? 'error' : after
          tally.add(item(String(i), b, a, sig, sig))
        })
        const r = tally.result()
        expect(r.examined).toBe(captures.length)
        expect(r.diffs_after - r.diffs_before).toBe(r.surfaced - r.silenced)
        expect(r.signatures.reduce((sum, s) => sum + s.count_before, 0)).toBe(r.diffs_before)
        expect(r.signatures.reduce((sum, s) => sum + s.count_after, 0)).toBe(r.diffs_after)
      }),
    )
  })
})
