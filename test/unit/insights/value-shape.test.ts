import { describe, expect, test } from 'bun:test'
import { valueShape, type ValueShape } from '../../../src/insights/index.ts'

describe('valueShape', () => {
  test.each<[unknown, ValueShape]>([
    ['2026-11-26T13:32:19Z', 'timestamp'],
    ['2026-11-26T13:32:19.123456+01:00', 'timestamp'],
    ['2026-11-26 13:32:19', 'timestamp'],
    ['2026-11-26T13:32', 'timestamp'],
    ['Thu, 26 Nov 2026 13:32:19 GMT', 'timestamp'],
    [1764163939, 'timestamp'],
    [1764163939123, 'timestamp'],
    ['1764163939', 'timestamp'],
    ['3f2b8c1e-9d4a-4e6b-8f0a-1c2d3e4f5a6b', 'uuid'],
    ['3F2B8C1E-9D4A-4E6B-8F0A-1C2D3E4F5A6B', 'uuid'],
    ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'token'],
    ['req_9s6XKzkNRiz8i3Ab', 'token'],
    ['5f3a9c2e8d7b6a1f0e9d8c7b', 'token'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'token'],
    ['dGhpcyBpcyBhIHRlc3Qgb2YgYmFzZTY0IQ==', 'token'],
    [['b1f0c2d4-0000-4000-8000-00000000abcd'], 'uuid'],
    // Not volatile-looking
    ['2026-11-26', 'other'],
    ['hello world', 'other'],
    ['aaaaaaaaaaaaaaa1', 'other'],
    ['user-name-number-1', 'other'],
    ['order-2024-confirmation', 'other'],
    ['deadbeefdeadbeefdead', 'other'],
    ['v2', 'other'],
    [42, 'other'],
    [19.99, 'other'],
    [1764163939.5, 'other'],
    ['123456789', 'other'],
    [true, 'other'],
    [null, 'other'],
    [{ at: '2026-11-26T13:32:19Z' }, 'other'],
    [['2026-11-26T13:32:19Z', '2026-11-26T13:32:20Z'], 'other'],
    [[['2026-11-26T13:32:19Z']], 'other'],
    ['x'.repeat(600), 'other'],
  ])('%p is %s', (value, shape) => {
    expect(valueShape(value)).toBe(shape)
  })
})
