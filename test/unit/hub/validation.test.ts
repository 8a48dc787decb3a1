import { describe, expect, test } from 'bun:test'
import { fieldOfDetail, fieldPathError, parseList, urlError } from '../../../hub/src/lib/validation.ts'

describe('form validation', () => {
  test.each([
    ['http://live:8080', undefined],
    ['https://shadow.internal/base', undefined],
    ['', 'Enter a URL.'],
    ['live:8080', 'Use an http:// or https:// URL.'],
    ['not a url', 'Enter a full URL, such as http://host:8080.'],
    ['ftp://x', 'Use an http:// or https:// URL.'],
  ])('urlError(%p)', (value, error) => {
    expect(urlError(value)).toBe(error)
  })

  test('the field a Problem detail names', () => {
    const fields = ['name', 'live_url', 'shadow_url'] as const
    expect(fieldOfDetail('shadow_url: must be an absolute URL', fields)).toBe('shadow_url')
    expect(fieldOfDetail('body field live_url: is required', fields)).toBe('live_url')
    expect(fieldOfDetail('a gate named "checkout" already exists', fields)).toBe('name')
    expect(fieldOfDetail('a gate with the same live/shadow URL pair exists', fields)).toBeUndefined()
    const settings = ['diff_config', 'float_tolerance', 'retention'] as const
    expect(fieldOfDetail('diff_config.float_tolerance: must be >= 0', settings)).toBe('float_tolerance')
    expect(fieldOfDetail('retention: 1h is below the global floor 720h', settings)).toBe('retention')
  })

  test('lists: one per line or comma, trimmed, deduplicated', () => {
    expect(parseList(' body.a \n\nbody.b, body.a\nheaders.X-Id ')).toEqual(['body.a', 'body.b', 'headers.X-Id'])
  })

  test.each([
    ['status', undefined],
    ['body', undefined],
    ['body.**.updated_at', undefined],
    ['headers.X-Trace', undefined],
    ['user.email', '"user.email" must start with status, headers. or body.'],
    ['bodyx.y', '"bodyx.y" must start with status, headers. or body.'],
  ])('field path %p', (path, error) => {
    expect(fieldPathError(path)).toBe(error)
  })
})
