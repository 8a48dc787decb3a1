import { describe, expect, test } from 'bun:test'
import { endpointTemplatesError, fieldOfDetail, fieldPathError, MAX_ENDPOINTS, parseLines, parseList, urlError } from '../../../hub/src/lib/validation.ts'

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
    // The API's rule in full: the preview would otherwise be sent and refused.
    ['body..a', '"body..a": it has an empty segment.'],
  ])('field path %p', (path, error) => {
    expect(fieldPathError(path)).toBe(error)
  })
})

describe('endpoint templates', () => {
  test('parseLines splits on lines only: a template may hold a comma', () => {
    expect(parseLines(' /a/{id} \n\n/b/x,y\n/a/{id}\n')).toEqual(['/a/{id}', '/b/x,y'])
  })

  test('a line without a leading / is named; more than MAX_ENDPOINTS lines are refused; the rest is the API\'s to judge', () => {
    expect(endpointTemplatesError(['/a', 'b/{id}', 'c'])).toBe('"b/{id}" must start with /.')
    expect(endpointTemplatesError(Array.from({ length: MAX_ENDPOINTS + 1 }, (_, i) => `/p${i}`))).toBe(`At most ${MAX_ENDPOINTS} templates (${MAX_ENDPOINTS + 1} given).`)
    expect(endpointTemplatesError(Array.from({ length: MAX_ENDPOINTS }, (_, i) => `/p${i}`))).toBeUndefined()
    expect(endpointTemplatesError(['/products/{id'])).toBeUndefined()
  })
})
