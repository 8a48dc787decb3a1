import { describe, expect, test } from 'bun:test'
import { applyPatch, type Operation } from 'fast-json-patch'
import { compareDocuments, DEFAULT_DIFF_CONFIG, type PatchOp } from '../../../src/diff/index.ts'

/**
 * RFC 6902 appendix A, the examples whose result a diff can produce: for
 * each, the document before, the document after, and the patch we must
 * emit (the appendix's own patch where it uses only add/remove/replace; a
 * remove/add pair where it uses move, since moves are not emitted).
 */
const APPENDIX: Array<[section: string, before: unknown, after: unknown, patch: PatchOp[]]> = [
  [
    'A.1 adding an object member',
    { foo: 'bar' },
    { baz: 'qux', foo: 'bar' },
    [{ op: 'add', path: '/baz', value: 'qux' }],
  ],
  [
    'A.2 adding an array element',
    { foo: ['bar', 'baz'] },
    { foo: ['bar', 'qux', 'baz'] },
    [{ op: 'add', path: '/foo/1', value: 'qux' }],
  ],
  [
    'A.3 removing an object member',
    { baz: 'qux', foo: 'bar' },
    { foo: 'bar' },
    [{ op: 'remove', path: '/baz' }],
  ],
  [
    'A.4 removing an array element',
    { foo: ['bar', 'qux', 'baz'] },
    { foo: ['bar', 'baz'] },
    [{ op: 'remove', path: '/foo/1' }],
  ],
  [
    'A.5 replacing a value',
    { baz: 'qux', foo: 'bar' },
    { baz: 'boo', foo: 'bar' },
    [{ op: 'replace', path: '/baz', value: 'boo' }],
  ],
  [
    'A.6 moving a value (as remove + add)',
    { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
    [
      { op: 'remove', path: '/foo/waldo' },
      { op: 'add', path: '/qux/thud', value: 'fred' },
    ],
  ],
  [
    'A.7 moving an array element (as remove + add)',
    { foo: ['all', 'grass', 'cows', 'eat'] },
    { foo: ['all', 'cows', 'eat', 'grass'] },
    [
      { op: 'remove', path: '/foo/1' },
      { op: 'add', path: '/foo/3', value: 'grass' },
    ],
  ],
  [
    'A.10 adding a nested member object',
    { foo: 'bar' },
    { foo: 'bar', child: { grandchild: {} } },
    [{ op: 'add', path: '/child', value: { grandchild: {} } }],
  ],
  [
    'A.14 ~ escape ordering',
    { '/': 9, '~1': 10 },
    { '/': 9, '~1': 11 },
    [{ op: 'replace', path: '/~01', value: 11 }],
  ],
  [
    'A.16 adding an array value',
    { foo: ['bar'] },
    { foo: ['bar', ['abc', 'def']] },
    [{ op: 'add', path: '/foo/1', value: ['abc', 'def'] }],
  ],
]

describe('RFC 6902 appendix A', () => {
  test.each(APPENDIX)('%s', (_, before, after, patch) => {
    const ops = compareDocuments(before, after, DEFAULT_DIFF_CONFIG)
    expect(ops).toEqual(patch)
    // RFC 6902 section 3: applied in order, the patch yields the target.
    expect(
      applyPatch(structuredClone(before), ops as Operation[], true, false).newDocument,
    ).toEqual(after)
  })
})
