import { describe, expect, test } from 'bun:test'
import { compileRedaction, DEFAULT_REDACTED_FIELDS, REDACTED } from '../../../src/diff/index.ts'

describe('redaction of headers', () => {
  test('the default headers, Authorization, Cookie, Set-Cookie, X-Api-Key and Proxy-Authorization, are always redacted, every value, whatever the case', () => {
    const headers = {
      authorization: ['Bearer secret'],
      COOKIE: ['a=1', 'b=2'],
      'Set-Cookie': ['s=1'],
      'x-api-key': ['k'],
      'proxy-authorization': ['Basic cGE6c2VjcmV0'],
      'Content-Type': ['application/json'],
    }
    expect(compileRedaction().headers(headers)).toEqual({
      authorization: [REDACTED],
      COOKIE: [REDACTED, REDACTED],
      'Set-Cookie': [REDACTED],
      'x-api-key': [REDACTED],
      'proxy-authorization': [REDACTED],
      'Content-Type': ['application/json'],
    })
    expect(headers.authorization).toEqual(['Bearer secret'])
  })

  test('extra fields add to the defaults, never replace them', () => {
    const redaction = compileRedaction(['headers.X-Secret'])
    expect(redaction.fields).toEqual([...DEFAULT_REDACTED_FIELDS, 'headers.X-Secret'])
    expect(redaction.headers({ Authorization: ['a'], 'x-secret': ['s'] })).toEqual({
      Authorization: [REDACTED],
      'x-secret': [REDACTED],
    })
  })

  test('wildcards name many headers', () => {
    expect(
      compileRedaction(['headers.x-*-token']).headers({ 'X-Auth-Token': ['t'], 'X-Other': ['o'] }),
    ).toEqual({
      'X-Auth-Token': [REDACTED],
      'X-Other': ['o'],
    })
  })

  test('a path may name one value of a header', () => {
    expect(
      compileRedaction(['headers.X-Multi.1']).headers({ 'x-multi': ['keep', 'hide'] }),
    ).toEqual({
      'x-multi': ['keep', REDACTED],
    })
  })

  test('returns the same map when nothing is redacted', () => {
    const headers = { 'Content-Type': ['text/plain'] }
    expect(compileRedaction().headers(headers)).toBe(headers)
  })

  test('X-Svc-Mode is not redacted by default', () => {
    expect(compileRedaction().headers({ 'X-Svc-Mode': ['shadow'] })).toEqual({
      'X-Svc-Mode': ['shadow'],
    })
  })
})

describe('redaction of JSON bodies', () => {
  const redact = (fields: string[], body: unknown) => compileRedaction(fields).json(body)

  test.each([
    [
      'a field keeps its key',
      ['body.password'],
      { password: 'p', user: 'u' },
      { password: REDACTED, user: 'u' },
    ],
    [
      'an object field becomes the string',
      ['body.card'],
      { card: { number: '4111' } },
      { card: REDACTED },
    ],
    [
      'a nested field',
      ['body.user.email'],
      { user: { email: 'e', name: 'n' } },
      { user: { email: REDACTED, name: 'n' } },
    ],
    [
      'every element with #',
      ['body.users.#.email'],
      { users: [{ email: 'a' }, { email: 'b' }] },
      { users: [{ email: REDACTED }, { email: REDACTED }] },
    ],
    ['one element by index', ['body.users.1'], { users: ['a', 'b'] }, { users: ['a', REDACTED] }],
    [
      'at any depth with **',
      ['body.**.token'],
      { token: 1, a: [{ token: 2 }, { b: { token: 3 } }] },
      { token: REDACTED, a: [{ token: REDACTED }, { b: { token: REDACTED } }] },
    ],
    [
      'a glob key',
      ['body.secret_*'],
      { secret_a: 1, secret_b: 2, public: 3 },
      { secret_a: REDACTED, secret_b: REDACTED, public: 3 },
    ],
    ['an escaped dot', ['body.a\\.b'], { 'a.b': 1, a: { b: 2 } }, { 'a.b': REDACTED, a: { b: 2 } }],
    ['body keys are case-sensitive', ['body.Password'], { password: 'p' }, { password: 'p' }],
    ['a missing field changes nothing', ['body.nope'], { yes: 1 }, { yes: 1 }],
  ])('%s', (_, fields, body, expected) => {
    const result = redact(fields, structuredClone(body))
    expect(result.value).toEqual(expected)
    expect(result.changed).toBe(JSON.stringify(body) !== JSON.stringify(expected))
  })

  test('a __proto__ field is really redacted (not swallowed by the prototype setter)', () => {
    const body = JSON.parse('{"__proto__":{"secret":"s"},"x":1}')
    const { value, changed } = redact(['body.__proto__'], body)
    expect(changed).toBe(true)
    expect(JSON.stringify(value)).toBe('{"__proto__":"[REDACTED]","x":1}')
  })

  test('the whole body', () => {
    expect(redact(['body'], { a: 1 })).toEqual({ value: REDACTED, changed: true })
  })

  test('a secret 100,000 levels deep is reached without recursion', () => {
    let body: unknown = { token: 'secret' }
    for (let i = 0; i < 100_000; i++) body = { n: body }
    const { changed } = redact(['body.**.token'], body)
    expect(changed).toBe(true)
    let node = body as { n?: unknown; token?: unknown }
    while (node.n !== undefined) node = node.n as typeof node
    expect(node.token).toBe(REDACTED)
  })

  test('only header paths: bodies are left alone and need no parsing', () => {
    const redaction = compileRedaction(['headers.X-A'])
    expect(redaction.redactsBody).toBe(false)
    const body = { authorization: 'not a header' }
    expect(redaction.json(body)).toEqual({ value: body, changed: false })
  })

  test('an invalid path fails at compile time', () => {
    expect(() => compileRedaction(['password'])).toThrow('must start with')
  })
})

describe('redaction of a submitted diff (createRequest with `diff`)', () => {
  const redaction = compileRedaction(['body.password', 'body.**.token', 'headers.Link.0'])

  test('drops operations at or under a redacted field, header names in any case', () => {
    const ops = [
      { op: 'replace' as const, path: '/headers/authorization', value: ['Bearer leaked'] },
      { op: 'replace' as const, path: '/headers/COOKIE/0', value: 'c=leaked' },
      { op: 'add' as const, path: '/body/password', value: 'leaked' },
      { op: 'remove' as const, path: '/body/user/token' },
      { op: 'replace' as const, path: '/headers/link/0', value: 'l=leaked' },
      { op: 'replace' as const, path: '/headers/Link/1', value: 'l=kept' },
      { op: 'replace' as const, path: '/body/name', value: 'kept' },
      { op: 'replace' as const, path: '/status', value: 500 },
    ]
    expect(redaction.patchOps(ops)).toEqual([
      { op: 'replace', path: '/headers/Link/1', value: 'l=kept' },
      { op: 'replace', path: '/body/name', value: 'kept' },
      { op: 'replace', path: '/status', value: 500 },
    ])
  })

  test('redacts a secret inside the value of an operation above it, and leaves the input alone', () => {
    const value = { user: { name: 'a', token: 'leaked', nested: [{ token: 'leaked' }] }, password: 'leaked' }
    const ops = [
      { op: 'replace' as const, path: '/body', value },
      { op: 'add' as const, path: '/headers', value: { 'x-api-key': ['k1', 'k2'], Link: ['l0', 'l1'], Vary: ['a'] } },
    ]
    expect(redaction.patchOps(ops)).toEqual([
      {
        op: 'replace',
        path: '/body',
        value: { user: { name: 'a', token: REDACTED, nested: [{ token: REDACTED }] }, password: REDACTED },
      },
      { op: 'add', path: '/headers', value: { 'x-api-key': [REDACTED, REDACTED], Link: [REDACTED, 'l1'], Vary: ['a'] } },
    ])
    expect(value.password).toBe('leaked')
  })

  test('a value that is not shaped like the headers it replaces is redacted whole (fail closed)', () => {
    const ops = [
      { op: 'add' as const, path: '/headers', value: [['authorization', 'Bearer leaked']] },
      { op: 'add' as const, path: '/headers', value: 'Authorization: Bearer leaked' },
      { op: 'replace' as const, path: '', value: { status: 200, headers: [['cookie', 'leaked']] } },
      { op: 'replace' as const, path: '/headers/Link', value: { 0: 'leaked' } },
      { op: 'replace' as const, path: '/body/notes', value: 'free text is the body’s own' },
    ]
    expect(redaction.patchOps(ops).map((op) => op.value)).toEqual([REDACTED, REDACTED, REDACTED, REDACTED, 'free text is the body’s own'])
  })

  test('a pointer escape is undone before matching', () => {
    expect(compileRedaction(['body.a/b']).patchOps([{ op: 'add', path: '/body/a~1b', value: 1 }])).toEqual([])
  })

  test('a path that is no JSON Pointer is refused', () => {
    expect(() => redaction.patchOps([{ op: 'add', path: 'body/x', value: 1 }])).toThrow(SyntaxError)
  })
})
