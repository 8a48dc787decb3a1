import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import {
  EndpointTemplateError,
  EndpointTemplates,
  MAX_TEMPLATE_LENGTH,
  parseEndpointTemplate,
} from '../../../src/insights/index.ts'

describe('parseEndpointTemplate', () => {
  test('reads literals, names and a trailing rest', () => {
    const template = parseEndpointTemplate('/v2/products/{sku}/caf%C3%A9/*')
    expect(template.source).toBe('/v2/products/{sku}/caf%C3%A9/*')
    expect(template.rest).toBe(true)
    expect(template.segments).toEqual([
      { kind: 'literal', text: 'v2' },
      { kind: 'literal', text: 'products' },
      { kind: 'param', name: 'sku' },
      { kind: 'literal', text: 'café' },
    ])
  })

  test.each([
    ['/', [{ kind: 'literal', text: '' }], false],
    ['/users/', [{ kind: 'literal', text: 'users' }, { kind: 'literal', text: '' }], false],
    ['/*', [], true],
    ['/{a}/{b_2}', [{ kind: 'param', name: 'a' }, { kind: 'param', name: 'b_2' }], false],
  ])('accepts %p', (source, segments, rest) => {
    const template = parseEndpointTemplate(source)
    expect(template.segments).toEqual(segments as never)
    expect(template.rest).toBe(rest)
  })

  // [template, words of the reason]
  test.each([
    ['', 'it is empty'],
    ['v2/search', 'must start with "/"'],
    ['/v2/search?q=1', 'without "?" or "#"'],
    ['/v2/search#top', 'without "?" or "#"'],
    ['/v2/my search', 'a space or a control character'],
    ['/v2/\u0000', 'a space or a control character'],
    ['/v2//search', 'an empty segment'],
    ['/v2/*/search', '"*" may only end a template'],
    ['/v2/*/', '"*" may only end a template'],
    ['/v2/search*', '"*" must be a whole segment'],
    ['/static/*.js', '"*" must be a whole segment'],
    ['/v2/{sku', '"{" is not closed'],
    ['/v2/sku}', '"}" has no "{" before it'],
    ['/v2/sku-{id}', 'must fill a whole segment'],
    ['/v2/{id}.json', 'must fill a whole segment'],
    ['/v2/{a}{b}', 'must fill a whole segment'],
    ['/v2/{}', '"{}" needs a name'],
    ['/v2/{2x}', 'not starting with a digit'],
    ['/v2/{a-b}', 'letters, digits and "_"'],
    ['/v2/{id}/x/{id}', 'the name "{id}" appears twice'],
    ['/v2/%zz', 'malformed percent-encoding'],
    ['/' + 'a'.repeat(MAX_TEMPLATE_LENGTH), `longer than ${MAX_TEMPLATE_LENGTH} characters`],
  ])('refuses %#, naming it and why', (source, reason) => {
    let error: unknown
    try {
      parseEndpointTemplate(source)
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(EndpointTemplateError)
    const templateError = error as EndpointTemplateError
    expect(templateError.code).toBe('invalid-endpoint-template')
    expect(templateError.template).toBe(source)
    expect(templateError.reason).toContain(reason)
    // A long template is named by its start, so that the message stays one readable line.
    expect(templateError.message).toContain(JSON.stringify(source.slice(0, 120)).slice(0, -1))
  })
})

describe('matching', () => {
  const templates = EndpointTemplates.parse([
    '/v2/products/{sku}/price',
    '/v2/products/{sku}',
    '/static/*',
    '/caf%C3%A9/{dish}',
    '/users/',
  ])

  // [path, the template that names its endpoint]
  test.each([
    ['/v2/products/abc/price', '/v2/products/{sku}/price'],
    ['/v2/products/15028/price?currency=EUR', '/v2/products/{sku}/price'],
    ['/v2/products//abc//price', '/v2/products/{sku}/price'],
    ['/v2/products/abc', '/v2/products/{sku}'],
    ['/v2/products/sku-15028/', '/v2/products/{id}/'],
    ['/v2/products/sku-15028/stock', '/v2/products/{id}/stock'],
    ['/v2/products', '/v2/products'],
    ['/V2/products/abc', '/V2/products/abc'],
    ['/static/', '/static/*'],
    ['/static/app.js', '/static/*'],
    ['/static/img/logo.png', '/static/*'],
    ['/static', '/static'],
    ['/café/soup', '/caf%C3%A9/{dish}'],
    ['/caf%c3%a9/soup', '/caf%C3%A9/{dish}'],
    ['/users/', '/users/'],
    ['/users', '/users'],
    ['/orders/42', '/orders/{id}'],
  ])('%p counts under %p', (path, template) => {
    expect(templates.templateOf(path)).toBe(template)
  })

  test('the first template that matches wins', () => {
    const list = EndpointTemplates.parse(['/v2/{any}/*', '/v2/products/{sku}'])
    expect(list.templateOf('/v2/products/abc')).toBe('/v2/{any}/*')
    const reversed = EndpointTemplates.parse(['/v2/products/{sku}', '/v2/{any}/*'])
    expect(reversed.templateOf('/v2/products/abc')).toBe('/v2/products/{sku}')
  })

  test('the examples of docs/insights.md hold', () => {
    const price = EndpointTemplates.parse(['/v2/products/{sku}/price'])
    expect(price.templateOf('/v2/products//abc/price?x=1')).toBe('/v2/products/{sku}/price')
    expect(price.templateOf('/v2/products//price')).not.toBe('/v2/products/{sku}/price')
    const rest = EndpointTemplates.parse(['/v2/{any}/*'])
    expect(rest.templateOf('/v2/products/')).toBe('/v2/{any}/*')
    expect(rest.templateOf('/v2/products/abc/price')).toBe('/v2/{any}/*')
    expect(rest.templateOf('/v2/products')).toBe('/v2/products')
  })

  test('/* matches every path', () => {
    const all = EndpointTemplates.parse(['/*'])
    for (const path of ['/', '/a', '/a/b/', '//x//y']) expect(all.templateOf(path)).toBe('/*')
  })
})

describe('matching, properties', () => {
  const word = fc.stringMatching(/^[a-z][a-z0-9._~-]{0,11}$/)
  // Anything a client may put in one segment, percent-escapes included.
  const value = fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{1,24}$/)
  const segment = fc.oneof(
    { arbitrary: word.map((text) => ({ kind: 'literal' as const, text })), weight: 3 },
    { arbitrary: fc.constant({ kind: 'param' as const }), weight: 2 },
  )
  const shape = fc.record({
    segments: fc.array(segment, { maxLength: 6 }),
    rest: fc.boolean(),
    trailingSlash: fc.boolean(),
  })

  test('a path generated from a template matches it', () => {
    fc.assert(
      fc.property(
        shape,
        fc.array(value, { minLength: 6, maxLength: 6 }),
        fc.array(value, { maxLength: 4 }),
        ({ segments, rest, trailingSlash }, values, tail) => {
          let names = 0
          const source =
            segments.map((s) => '/' + (s.kind === 'literal' ? s.text : `{p${names++}}`)).join('') +
            (rest ? '/*' : trailingSlash || segments.length === 0 ? '/' : '')
          const path =
            segments.map((s, i) => '/' + (s.kind === 'literal' ? s.text : values[i]!)).join('') +
            (rest ? '/' + tail.join('/') : trailingSlash || segments.length === 0 ? '/' : '')
          expect(EndpointTemplates.parse([source]).templateOf(path)).toBe(source)
        },
      ),
      { numRuns: 500 },
    )
  })

  test('a path of a different length does not match a template without /*', () => {
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.array(value, { minLength: 1, maxLength: 3 }),
        (literals, extra) => {
          const source = '/' + literals.map((_, i) => `{p${i}}`).join('/')
          const path = '/' + [...literals, ...extra].join('/')
          expect(EndpointTemplates.parse([source]).templateOf(path)).not.toBe(source)
        },
      ),
      { numRuns: 300 },
    )
  })
})
