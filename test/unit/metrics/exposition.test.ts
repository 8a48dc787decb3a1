import { describe, expect, test } from 'bun:test'
import { escapeHelp, escapeLabelValue, formatSampleValue } from '../../../src/metrics/index.ts'

describe('exposition helpers', () => {
  test.each([
    ['plain', 'plain'],
    ['back\\slash', 'back\\\\slash'],
    ['say "hi"', 'say \\"hi\\"'],
    ['two\nlines', 'two\\nlines'],
    ['\\"\n', '\\\\\\"\\n'],
  ])('escapeLabelValue(%p) = %p', (input, expected) => {
    expect(escapeLabelValue(input)).toBe(expected)
  })

  test.each([
    ['plain', 'plain'],
    ['keeps "quotes"', 'keeps "quotes"'],
    ['back\\slash\nnewline', 'back\\\\slash\\nnewline'],
  ])('escapeHelp(%p) = %p', (input, expected) => {
    expect(escapeHelp(input)).toBe(expected)
  })

  test.each([
    [0, '0'],
    [1.5, '1.5'],
    [-2, '-2'],
    [1e21, '1e+21'],
    [Infinity, '+Inf'],
    [-Infinity, '-Inf'],
    [NaN, 'NaN'],
  ])('formatSampleValue(%p) = %p', (value, expected) => {
    expect(formatSampleValue(value)).toBe(expected)
  })
})
