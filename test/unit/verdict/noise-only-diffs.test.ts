import { describe, expect, test } from 'bun:test'
import { noiseOnlyDiffs, type DiffSignatureCount, type FieldClass } from '../../../src/verdict/index.ts'

const FIELDS: FieldClass[] = [
  { method: 'GET', template: '/items/{id}', op: 'replace', path: '/body/request_id', classification: 'noise' },
  { method: 'GET', template: '/items/{id}', op: 'replace', path: '/headers/date', classification: 'noise' },
  { method: 'GET', template: '/items/{id}', op: 'replace', path: '/body/price', classification: 'real' },
  { method: 'GET', template: '/items/{id}', op: 'add', path: '/body/tags/*', classification: 'unknown' },
  // The same path is noise on /users only: classifications are per endpoint.
  { method: 'GET', template: '/users/{id}', op: 'replace', path: '/body/price', classification: 'noise' },
]

function signature(ops: Array<[string, string]>, count: number, extra: Partial<DiffSignatureCount> = {}): DiffSignatureCount {
  return { method: 'GET', template: '/items/{id}', ops: ops.map(([op, path]) => ({ op, path })), truncated: false, overflow: false, count, ...extra }
}

describe('noiseOnlyDiffs', () => {
  // [case, signature, captures ignored]
  test.each([
    ['one op on a noise field', signature([['replace', '/body/request_id']], 7), 7],
    ['every op on a noise field', signature([['replace', '/body/request_id'], ['replace', '/headers/date']], 5), 5],
    ['one real op among noise ones: counted', signature([['replace', '/body/request_id'], ['replace', '/body/price']], 5), 0],
    ['an unknown field: counted', signature([['add', '/body/tags/*']], 4), 0],
    ['a field with no classification at all: counted', signature([['remove', '/body/gone']], 3), 0],
    ['the same path with another op: counted', signature([['remove', '/body/request_id']], 3), 0],
    ['a field noise on another endpoint only: counted', signature([['replace', '/body/price']], 6), 0],
    ['noise on its own endpoint', signature([['replace', '/body/price']], 6, { template: '/users/{id}' }), 6],
    ['noise under another method: counted', signature([['replace', '/body/price']], 6, { template: '/users/{id}', method: 'POST' }), 0],
    ['a truncated signature, its listed ops noise: counted', signature([['replace', '/body/request_id']], 2, { truncated: true }), 0],
    ['an overflow signature: counted', signature([], 9, { overflow: true }), 0],
    ['a signature without ops: counted', signature([], 9), 0],
  ] as const)('%s', (_name, sig, ignored) => {
    expect(noiseOnlyDiffs([sig], FIELDS)).toBe(ignored)
  })

  test('sums the noise-only signatures and nothing else', () => {
    const signatures = [
      signature([['replace', '/body/request_id']], 7),
      signature([['replace', '/headers/date'], ['replace', '/body/request_id']], 2),
      signature([['replace', '/body/price']], 50),
    ]
    expect(noiseOnlyDiffs(signatures, FIELDS)).toBe(9)
    expect(noiseOnlyDiffs(signatures, [])).toBe(0)
  })
})
