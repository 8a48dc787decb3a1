import { describe, expect, test } from 'bun:test'
import { automaticTemplate } from '../../../src/insights/index.ts'

// [path as received, its automatic template]
const TEMPLATED: Array<[string, string]> = [
  ['/users/42', '/users/{id}'],
  ['/users/0', '/users/{id}'],
  ['/api/v1/users/1234567', '/api/v1/users/{id}'],
  ['/orders/0042/items/7', '/orders/{id}/items/{id}'],
  ['/v2/products/15028/price', '/v2/products/{id}/price'],
  ['/v2/products/sku-15028/price', '/v2/products/{id}/price'],
  ['/v2/products/SKU15028', '/v2/products/{id}'],
  ['/accounts/3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b', '/accounts/{id}'],
  ['/accounts/3F2B8C1E-9D4A-4E6B-8F0A-1C2D3E4F5A6B/keys', '/accounts/{id}/keys'],
  ['/accounts/abcdefab-abcd-abcd-abcd-abcdefabcdef', '/accounts/{id}'],
  ['/commits/5f3a9c2e', '/commits/{id}'],
  ['/commits/deadbee1', '/commits/{id}'],
  ['/blobs/e83c5163316f89bfbde7d9ab23ca2e25604af290', '/blobs/{id}'],
  ['/objects/507f1f77bcf86cd799439011', '/objects/{id}'],
  ['/events/01ARZ3NDEKTSV4RRFFQ69G5FAV', '/events/{id}'],
  ['/share/dGhpcyBpcyBhIHRlc3Q', '/share/{id}'],
  ['/reset/Zm9vYmFyYmF6cXV4MQ==', '/reset/{id}'],
  ['/s/aZ_x-9kQmP2rT7vW', '/s/{id}'],
  ['/reports/2024-05-01', '/reports/{id}'],
  ['/releases/1.2.3/notes', '/releases/{id}/notes'],
  ['/files/invoice-2024-001.pdf', '/files/{id}'],
  ['/static/main.4f3a9c21.js', '/static/{id}'],
  ['/ord_123abc/lines', '/{id}/lines'],
  ['/customers/cus_9s6XKzkNRiz8i3/cards/card_1MvoiELkdIwHu7ix', '/customers/{id}/cards/{id}'],
  // Percent-encoded identifiers are judged as decoded.
  ['/users/%34%32', '/users/{id}'],
  // Query and fragment are not part of the path.
  ['/users/42?expand=orders', '/users/{id}'],
  ['/search?q=1234', '/search'],
  ['/docs/page#section-2', '/docs/page'],
]

// Paths that must keep every segment.
const KEPT: string[] = [
  '/',
  '/health',
  '/healthz',
  '/metrics',
  '/v2/search',
  '/api/v1/users',
  '/api/v10/orders',
  '/api/1.0/users',
  '/static/app.js',
  '/static/css/site.min.css',
  '/en-US/docs',
  '/de-DE/docs/getting-started',
  '/oauth2/token',
  '/.well-known/openid-configuration',
  '/graphql',
  '/users/me',
  '/users/me/preferences',
  '/robots.txt',
  '/favicon.ico',
  '/api/v2/products/search',
  '/s3/buckets',
  '/i18n/messages',
  '/html5/player',
  '/deadbeef',
  '/internationalization',
  '/caf%C3%A9/menu',
  '/a%2Fb/c',
]

describe('automatic templates', () => {
  test.each(TEMPLATED)('%p becomes %p', (path, template) => {
    expect(automaticTemplate(path)).toBe(template)
  })

  test.each(KEPT)('%p stays as it is', (path) => {
    expect(automaticTemplate(path)).toBe(path)
  })

  test('the table holds at least 40 paths', () => {
    expect(TEMPLATED.length + KEPT.length).toBeGreaterThanOrEqual(40)
  })
})

describe('path shape', () => {
  test.each([
    ['/users//42', '/users/{id}'],
    ['//users///42//', '/users/{id}/'],
    ['/users/', '/users/'],
    ['/users/42/', '/users/{id}/'],
    ['', '/'],
    ['//', '/'],
    ['?x=1', '/'],
  ])('%p becomes %p: doubled slashes merge, a trailing slash stays', (path, template) => {
    expect(automaticTemplate(path)).toBe(template)
  })

  test('a literal brace is percent-encoded, so {id} always means a placeholder', () => {
    expect(automaticTemplate('/x/{id}/y')).toBe('/x/%7Bid%7D/y')
    expect(automaticTemplate('/x/{4711}')).toBe('/x/{id}')
  })

  test('a malformed percent-encoding is judged as received', () => {
    expect(automaticTemplate('/files/%zz')).toBe('/files/%zz')
    expect(automaticTemplate('/files/%E0%A4%A')).toBe('/files/%E0%A4%A')
  })

  test('kept segments keep their percent-encoding as received', () => {
    expect(automaticTemplate('/caf%c3%a9')).toBe('/caf%c3%a9')
  })
})
