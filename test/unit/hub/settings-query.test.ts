import { describe, expect, test } from 'bun:test'
import { MAX_PREFILL, ignoreSettingsPath, parseIgnoreParam } from '../../../hub/src/lib/settings-query.ts'

describe('the settings URL', () => {
  test('carries the entries to add, each once, and reads them back', () => {
    const path = ignoreSettingsPath('g-1', ['body.items.#.updated_at', 'headers.X-Trace-Id'])
    expect(path).toBe('/gates/g-1/settings?ignore=body.items.%23.updated_at&ignore=headers.X-Trace-Id')
    expect(parseIgnoreParam(path.split('?')[1]!)).toEqual(['body.items.#.updated_at', 'headers.X-Trace-Id'])
    expect(ignoreSettingsPath('g-1', [])).toBe('/gates/g-1/settings')
  })

  test('drops blanks, duplicates and paths without a status, headers or body root; keeps commas inside a key', () => {
    expect(parseIgnoreParam('ignore=body.a&ignore=%20body.a%20&ignore=&ignore=items.x&ignore=body.a%2Cb&other=body.z')).toEqual(['body.a', 'body.a,b'])
  })

  test('takes at most MAX_PREFILL entries', () => {
    const many = Array.from({ length: MAX_PREFILL + 5 }, (_, i) => `ignore=body.f${i}`).join('&')
    expect(parseIgnoreParam(many)).toHaveLength(MAX_PREFILL)
  })
})
