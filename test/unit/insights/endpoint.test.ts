import { describe, expect, test } from 'bun:test'
import {
  endpointOf,
  EndpointTemplates,
  MAX_TEMPLATES_PER_GATE,
  OTHER_TEMPLATE,
  templateWithinCap,
} from '../../../src/insights/index.ts'

describe('endpointOf', () => {
  test('is the method as received and the template of the path', () => {
    expect(endpointOf('GET', '/v2/products/15028?x=1')).toEqual({
      method: 'GET',
      template: '/v2/products/{id}',
    })
    const templates = EndpointTemplates.parse(['/v2/products/{sku}'])
    expect(endpointOf('patch', '/v2/products/abc', templates)).toEqual({
      method: 'patch',
      template: '/v2/products/{sku}',
    })
  })
})

describe('templateWithinCap', () => {
  const full = (count: number) => new Set(Array.from({ length: count }, (_, i) => `/t${i}`))

  test(`the gate's limit is ${MAX_TEMPLATES_PER_GATE} templates by default`, () => {
    expect(templateWithinCap('/new', full(MAX_TEMPLATES_PER_GATE - 1))).toBe('/new')
    expect(templateWithinCap('/new', full(MAX_TEMPLATES_PER_GATE))).toBe(OTHER_TEMPLATE)
  })

  test('a known template stays, also past the limit', () => {
    expect(templateWithinCap('/t1', full(5), 3)).toBe('/t1')
  })

  test('a new template while there is room stays', () => {
    expect(templateWithinCap('/new', full(2), 3)).toBe('/new')
  })

  test('a new template past the limit counts under (other)', () => {
    expect(templateWithinCap('/new', full(3), 3)).toBe(OTHER_TEMPLATE)
    const withOther = full(3).add(OTHER_TEMPLATE)
    expect(templateWithinCap('/new', withOther, 3)).toBe(OTHER_TEMPLATE)
    expect(templateWithinCap(OTHER_TEMPLATE, withOther, 3)).toBe(OTHER_TEMPLATE)
  })

  test('(other) cannot be a real template: every template starts with "/"', () => {
    expect(OTHER_TEMPLATE.startsWith('/')).toBe(false)
  })
})
