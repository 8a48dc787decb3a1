import { describe, expect, test } from 'bun:test'
import { generalisedPath } from '../../../src/insights/index.ts'

describe('generalisedPath', () => {
  test.each([
    ['/body/price/tax', '/body/price/tax'],
    ['/body/items/0/price', '/body/items/*/price'],
    ['/body/items/17/tags/3', '/body/items/*/tags/*'],
    ['/body/items/-', '/body/items/*'],
    ['/body/stock/sku-15028/reserved', '/body/stock/{key}/reserved'],
    ['/body/users/3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b', '/body/users/{key}'],
    ['/body/daily/2024-05-01/count', '/body/daily/{key}/count'],
    // A pointer cannot tell an index from a key of digits: both read as an index.
    ['/body/codes/007', '/body/codes/*'],
    ['/body/byId/4711/name', '/body/byId/*/name'],
    ['/body/v2/name', '/body/v2/name'],
    ['/headers/x-request-id', '/headers/x-request-id'],
    ['/status', '/status'],
    ['/body', '/body'],
    ['', ''],
  ])('%p reads %p', (path, general) => {
    expect(generalisedPath(path)).toBe(general)
  })

  test.each([
    // A key holding "/" or "~" stays one escaped token.
    ['/body/a~1b/c', '/body/a~1b/c'],
    ['/body/m~0n', '/body/m~0n'],
    ['/body/~01', '/body/~01'],
    // Judged unescaped: "12~1345" is the key "12/345", five digits.
    ['/body/12~1345', '/body/{key}'],
    // The key "items/1" is no index: it is escaped back as it came.
    ['/body/items~11', '/body/items~11'],
  ])('handles pointer escapes: %p reads %p', (path, general) => {
    expect(generalisedPath(path)).toBe(general)
  })

  test('a text that is not a pointer is kept as it is', () => {
    expect(generalisedPath('body/0')).toBe('body/0')
  })
})
