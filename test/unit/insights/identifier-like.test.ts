import { describe, expect, test } from 'bun:test'
import { isIdentifierLike } from '../../../src/insights/index.ts'

describe('isIdentifierLike', () => {
  test.each([
    ['7', 'all digits, one of them'],
    ['0042', 'all digits, leading zeros'],
    ['123', 'three digits'],
    ['sku-15028', 'three or more digits with letters'],
    ['a1b2c3', 'three digits spread out'],
    ['2024-05-01', 'a date'],
    ['3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b', 'a UUID'],
    ['ABCDEFAB-ABCD-ABCD-ABCD-ABCDEFABCDEF', 'a UUID without a digit'],
    ['cafebab1', 'eight hex digits with a digit'],
    ['abcdefghijklmno1', 'a 16-character token'],
    ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'a ULID'],
    ['dGhpcyBpcyBhIHRlc3Q', 'base64url with one digit'],
    ['Zm9vYmFyYmF6cXV4MQ==', 'base64 with padding'],
  ])('%p is identifier-like (%s)', (text) => {
    expect(isIdentifierLike(text)).toBe(true)
  })

  test.each([
    ['', 'empty'],
    ['users', 'a word'],
    ['v2', 'a short version'],
    ['v10', 'a version with two digits'],
    ['1.0', 'a version number with two digits'],
    ['en-US', 'a locale'],
    ['app.js', 'a file name'],
    ['deadbeef', 'hex letters without a digit read as a word'],
    ['cafeba1', 'seven hex characters'],
    ['abcdefghijklmn1', 'a 15-character token'],
    ['abcdefghijklmnopqrstuvwxyz', 'a long word without digits'],
    ['getting_started', 'words joined'],
    ['price', 'a JSON key'],
    ['reserved', 'a JSON key'],
    ['x-request-id', 'a header name'],
    ['abcdefghijklmno1!', 'a long text outside the token alphabet'],
  ])('%p is not identifier-like (%s)', (text) => {
    expect(isIdentifierLike(text)).toBe(false)
  })
})
