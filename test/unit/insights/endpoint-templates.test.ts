import { describe, expect, test } from 'bun:test'
import {
  EndpointTemplateError,
  EndpointTemplates,
  endpointTemplatesProblem,
  MAX_ENDPOINT_TEMPLATES,
} from '../../../src/insights/index.ts'

function errorOf(run: () => unknown): EndpointTemplateError {
  try {
    run()
  } catch (error) {
    if (error instanceof EndpointTemplateError) return error
    throw error
  }
  throw new Error('expected an EndpointTemplateError')
}

const many = (count: number) => Array.from({ length: count }, (_, i) => `/route-${i}/{id}`)

describe('a list of explicit templates', () => {
  test('the empty list leaves every path to the automatic rule', () => {
    const templates = EndpointTemplates.parse([])
    expect(templates).toBe(EndpointTemplates.NONE)
    expect(templates.templateOf('/users/42')).toBe('/users/{id}')
  })

  test(`holds up to ${MAX_ENDPOINT_TEMPLATES} templates`, () => {
    const templates = EndpointTemplates.parse(many(MAX_ENDPOINT_TEMPLATES))
    expect(templates.templates).toHaveLength(MAX_ENDPOINT_TEMPLATES)
    expect(templates.templateOf('/route-499/x')).toBe('/route-499/{id}')
  })

  test(`refuses ${MAX_ENDPOINT_TEMPLATES + 1}, naming the limit`, () => {
    const error = errorOf(() => EndpointTemplates.parse(many(MAX_ENDPOINT_TEMPLATES + 1)))
    expect(error.template).toBeUndefined()
    expect(error.message).toBe(
      `invalid endpoint templates: at most ${MAX_ENDPOINT_TEMPLATES} templates are allowed, got ${MAX_ENDPOINT_TEMPLATES + 1}`,
    )
  })

  test('names the first bad template and its index', () => {
    const error = errorOf(() => EndpointTemplates.parse(['/ok/{id}', '/bad/{id', '/worse*']))
    expect(error.template).toBe('/bad/{id')
    expect(error.index).toBe(1)
    expect(error.message).toBe(
      'invalid endpoint template "/bad/{id" (at index 1): "{" is not closed',
    )
  })

  test('refuses a template listed twice', () => {
    const error = errorOf(() => EndpointTemplates.parse(['/a/{id}', '/b', '/a/{id}']))
    expect(error.template).toBe('/a/{id}')
    expect(error.index).toBe(2)
    expect(error.reason).toBe('it is listed twice')
  })

  test('endpointTemplatesProblem gives the message, or undefined for a good list', () => {
    expect(endpointTemplatesProblem(['/a/{id}', '/b/*'])).toBeUndefined()
    expect(endpointTemplatesProblem(['a'])).toBe(
      'invalid endpoint template "a" (at index 0): it must start with "/"',
    )
  })
})
