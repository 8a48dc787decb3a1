import { describe, expect, test } from 'bun:test'
import { storableJson } from '../../../src/store/rows.ts'

describe('storableJson', () => {
  test('a NUL in a string or a key becomes U+FFFD, which jsonb can hold', () => {
    expect(storableJson([{ op: 'replace', path: '/body/a', value: 'x\u0000y' }])).toEqual([{ op: 'replace', path: '/body/a', value: 'x\ufffdy' }])
    expect(storableJson<Record<string, string[]>>({ 'k\u0000': ['\u0000'] })).toEqual({ 'k\ufffd': ['\ufffd'] })
  })

  test('text that only spells an escape is kept, and a value without NUL is the same object', () => {
    const literal = { a: '\\u0000', b: '\\\u0000' }
    expect(storableJson(literal)).toEqual({ a: '\\u0000', b: '\\\ufffd' })
    const plain = { a: 'x' }
    expect(storableJson(plain)).toBe(plain)
  })
})
