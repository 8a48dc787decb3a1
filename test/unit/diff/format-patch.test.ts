import { describe, expect, test } from 'bun:test'
import { formatPatch, type PatchOp } from '../../../src/diff/index.ts'

describe('formatPatch', () => {
  test('one line per patch, values as JSON, removes without value', () => {
    expect(
      formatPatch([
        { op: 'replace', path: '/status', value: 500 },
        { op: 'add', path: '/body/tags/1', value: 'new' },
        { op: 'remove', path: '/body/legacy' },
        { op: 'replace', path: '/body/user', value: { name: 'a', roles: ['x'] } },
      ]),
    ).toBe(
      'replace /status=500; add /body/tags/1="new"; remove /body/legacy; replace /body/user={"name":"a","roles":["x"]}',
    )
  })

  test('an empty patch is an empty text', () => {
    expect(formatPatch([])).toBe('')
  })

  test('long values are cut', () => {
    const text = formatPatch([{ op: 'add', path: '/x', value: 'y'.repeat(10_000) }])
    expect(text.length).toBeLessThan(100)
    expect(text.endsWith('…')).toBe(true)
  })

  test('large values are cut without serialising them whole', () => {
    const value = Array.from({ length: 100_000 }, (_, i) => ({ i }))
    const text = formatPatch([{ op: 'add', path: '/x', value }])
    expect(text.length).toBeLessThan(100)
  })

  test('at most 20 operations are listed, then a count', () => {
    const ops: PatchOp[] = Array.from({ length: 25 }, (_, i) => ({ op: 'remove', path: `/${i}` }))
    const text = formatPatch(ops)
    expect(text.split('; ')).toHaveLength(21)
    expect(text.endsWith('… and 5 more')).toBe(true)
  })

  test('the text stays bounded whatever the paths', () => {
    const ops: PatchOp[] = Array.from({ length: 20 }, () => ({
      op: 'remove',
      path: '/' + 'p'.repeat(500),
    }))
    expect(formatPatch(ops).length).toBeLessThan(2100)
  })
})
