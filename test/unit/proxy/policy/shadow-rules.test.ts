import { describe, expect, test } from 'bun:test'
import {
  BASE_SHADOW_RULES,
  compileShadowRules,
  parseShadowRules,
  ShadowRuleError,
} from '../../../../src/proxy/policy/shadow-rules.ts'

/** True when `deny GET:<pattern>` catches `GET <path>`, i.e. the pattern matches the path. */
function matches(pattern: string, path: string): boolean {
  return !compileShadowRules(`deny GET:${pattern}`).shouldShadow('GET', path).shadow
}

function thrown(fn: () => unknown): unknown {
  try {
    fn()
  } catch (error) {
    return error
  }
  throw new Error('expected an error')
}

// The wildcard table (docs/proxy.md "Which requests are shadowed"): every
// row, with paths it matches and paths it does not.
const WILDCARD_TABLE: { form: string; pattern: string; match: string[]; miss: string[] }[] = [
  {
    form: 'bare `*`: any path',
    pattern: '*',
    match: ['/', '/a', '/a/b/c', '/API/Users', '/a.json', '//x//y', '/%2F'],
    miss: [],
  },
  {
    form: 'trailing `*` only: recursive prefix, crosses `/`',
    pattern: '/api/*',
    match: ['/api/', '/api/users', '/api/users/42/orders', '/API/Users', '//api//users'],
    miss: ['/api', '/apix', '/v1/api/users', '/ap/i'],
  },
  {
    form: 'trailing `*` only, inside a segment',
    pattern: '/api*',
    match: ['/api', '/apix', '/api/x/y', '/APIs'],
    miss: ['/ap', '/v/api', '/a/pi'],
  },
  {
    form: 'leading `*` only: suffix, crosses `/`',
    pattern: '*.json',
    match: ['/a.json', '/a/b/c.json', '/.json', '/A.JSON'],
    miss: ['/a.json/x', '/a.jsonx', '/ajson', '/a.js'],
  },
  {
    form: 'leading `*` only, ending with a segment',
    pattern: '*/health',
    match: ['/health', '/x/y/health', '/HEALTH', '/x//health'],
    miss: ['/healthz', '/health/x', '/xhealth'],
  },
  {
    form: 'leading and trailing `*` (exactly two): substring',
    pattern: '*admin*',
    match: ['/admin', '/x/admin/y', '/superadministrator', '/ADMIN', '/a/b/c-admin'],
    miss: ['/adm/in', '/a', '/admn'],
  },
  {
    form: 'leading and trailing `*` around slashes: substring crossing `/`',
    pattern: '*/internal/*',
    match: ['/internal/x', '/a/internal/b/c', '/a//internal//b'],
    miss: ['/internal', '/internalx/y', '/a/internals/b'],
  },
  {
    form: 'any other placement: one segment, does not cross `/`',
    pattern: '/users/*/orders',
    match: ['/users/42/orders', '/users/abc/orders', '/USERS/x/ORDERS', '/users//42//orders'],
    miss: ['/users/42/7/orders', '/users/orders', '/users/42/orders/1', '/x/users/1/orders'],
  },
  {
    form: 'any other placement: inside a segment',
    pattern: '/files/*.txt',
    match: ['/files/a.txt', '/files/.txt', '/FILES/A.TXT'],
    miss: ['/files/a/b.txt', '/files/a.txt/x', '/files/a.txt.gz'],
  },
  {
    form: 'any other placement: two trailing `*` are not recursive',
    pattern: '/api/**',
    match: ['/api/x', '/api/'],
    miss: ['/api/x/y', '/api'],
  },
  {
    form: 'any other placement: leading `*` with another `*` stays in its segment',
    pattern: '*/v*/users',
    match: ['/v1/users', '/v/users', '/V2/USERS'],
    miss: ['/a/v1/users', '/v1/x/users', '/v1/users/1'],
  },
  {
    form: 'any other placement: three `*`',
    pattern: '/a/*/b/*',
    match: ['/a/1/b/2', '/a/x/b/'],
    miss: ['/a/1/b/2/3', '/a/1/2/b/3'],
  },
  {
    form: 'no `*`: the exact path',
    pattern: '/api/users',
    match: ['/api/users', '/API/USERS', '//api//users'],
    miss: ['/api/users/', '/api/user', '/api/users/1', '/api'],
  },
]

describe('wildcard table', () => {
  for (const row of WILDCARD_TABLE) {
    describe(`${row.form} ("${row.pattern}")`, () => {
      for (const path of row.match) {
        test(`matches ${path}`, () => expect(matches(row.pattern, path)).toBe(true))
      }
      for (const path of row.miss) {
        test(`does not match ${path}`, () => expect(matches(row.pattern, path)).toBe(false))
      }
    })
  }

  test('a rule for one method does not match another', () => {
    expect(compileShadowRules('deny GET:*').shouldShadow('HEAD', '/x').shadow).toBe(true)
  })
})

describe('evaluation rules', () => {
  test('the first matching rule wins', () => {
    const rules = compileShadowRules('deny GET:/api/admin,allow GET:/api/*,deny GET:/api/*')
    expect(rules.shouldShadow('GET', '/api/admin')).toMatchObject({
      shadow: false,
      rule: { position: 1 },
    })
    expect(rules.shouldShadow('GET', '/api/users')).toMatchObject({
      shadow: true,
      rule: { position: 2 },
    })
  })

  test('a request no user rule matches is decided by a base rule, never left unmatched', () => {
    const rules = compileShadowRules('deny GET:/admin/*')
    expect(rules.shouldShadow('GET', '/users')).toMatchObject({
      shadow: true,
      rule: { source: 'base', text: 'allow GET:*' },
    })
    expect(rules.shouldShadow('MKCOL', '/users')).toMatchObject({
      shadow: false,
      rule: { source: 'base', text: 'deny *:*' },
    })
  })

  test('the base rules: GET, HEAD and OPTIONS are allowed, every other method is denied by deny *:*', () => {
    expect(BASE_SHADOW_RULES).toBe('allow GET:*,allow HEAD:*,allow OPTIONS:*,deny *:*')
    const rules = compileShadowRules(undefined)
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect(rules.shouldShadow(method, '/anything')).toMatchObject({
        shadow: true,
        rule: { source: 'base', action: 'allow', method, text: `allow ${method}:*` },
      })
    }
  })

  // The default, method by method: only GET, HEAD and OPTIONS are shadowed,
  // every other method is not, not only POST, PUT, DELETE and PATCH.
  const DEFAULT_DECISIONS: readonly [method: string, shadowed: boolean][] = [
    ['GET', true],
    ['HEAD', true],
    ['OPTIONS', true],
    ['get', true],
    ['POST', false],
    ['PUT', false],
    ['DELETE', false],
    ['PATCH', false],
    ['patch', false],
    ['TRACE', false],
    ['CONNECT', false],
    ['PURGE', false],
    ['MOVE', false],
    ['COPY', false],
    ['LOCK', false],
    ['UNLOCK', false],
    ['MKCOL', false],
    ['PROPFIND', false],
    ['PROPPATCH', false],
    ['SEARCH', false],
    ['QUERY', false],
    ['X-CUSTOM', false],
  ]
  test.each(DEFAULT_DECISIONS)('by default %s is shadowed: %p', (method, shadowed) => {
    const decision = compileShadowRules('').shouldShadow(method, '/api/x')
    expect(decision.shadow).toBe(shadowed)
    expect(decision.rule.source).toBe('base')
  })

  test('base rules are appended after the user rules', () => {
    const rules = compileShadowRules('allow GET:/a,deny HEAD:*')
    expect(rules.rules.map((rule) => rule.text)).toEqual([
      'allow GET:/a',
      'deny HEAD:*',
      ...BASE_SHADOW_RULES.split(','),
    ])
    expect(rules.rules.map((rule) => rule.source)).toEqual([
      'user',
      'user',
      'base',
      'base',
      'base',
      'base',
    ])
  })

  test('a user rule overrides a base rule for its pattern only', () => {
    const rules = compileShadowRules('allow POST:/api/search')
    expect(rules.shouldShadow('POST', '/api/search')).toMatchObject({
      shadow: true,
      rule: { source: 'user' },
    })
    expect(rules.shouldShadow('POST', '/api/orders')).toMatchObject({
      shadow: false,
      rule: { source: 'base' },
    })
    expect(rules.shouldShadow('PUT', '/api/search')).toMatchObject({
      shadow: false,
      rule: { source: 'base' },
    })
  })

  test('allow *:* shadows every method but TRACE, and the base rules stay in the list', () => {
    const rules = compileShadowRules('allow *:*')
    for (const method of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'PURGE', 'MOVE', 'CONNECT']) {
      expect(rules.shouldShadow(method, '/x').shadow).toBe(true)
    }
    expect(rules.shouldShadow('TRACE', '/x')).toMatchObject({ shadow: false, rule: { text: 'deny *:*' } })
    expect(rules.rules).toHaveLength(5)
  })

  // User rules over the base rules: [rules, method, path, shadowed, deciding rule].
  const OVERRIDES: readonly [string, string, string, boolean, string][] = [
    ['allow POST:/api/search', 'POST', '/api/search', true, 'allow POST:/api/search'],
    ['allow POST:/api/search', 'POST', '/api/orders', false, 'deny *:*'],
    ['allow POST:/api/search', 'PURGE', '/api/search', false, 'deny *:*'],
    ['allow PURGE:/cache/*', 'PURGE', '/cache/img/1.png', true, 'allow PURGE:/cache/*'],
    ['allow PURGE:/cache/*', 'purge', '/CACHE/x', true, 'allow PURGE:/cache/*'],
    ['allow PURGE:/cache/*', 'PURGE', '/other', false, 'deny *:*'],
    ['allow PURGE:/cache/*', 'MOVE', '/cache/x', false, 'deny *:*'],
    ['allow *:/x', 'MOVE', '/x', true, 'allow *:/x'],
    ['allow *:/x', 'PROPPATCH', '/x', true, 'allow *:/x'],
    ['allow *:/x', 'TRACE', '/x', false, 'deny *:*'],
    ['allow *:/x', 'trace', '/x', false, 'deny *:*'],
    ['allow *:/x', 'MOVE', '/y', false, 'deny *:*'],
    ['allow TRACE:/x', 'TRACE', '/x', true, 'allow TRACE:/x'],
    ['allow trace:*', 'TRACE', '/anything', true, 'allow trace:*'],
    ['allow *:/x, allow TRACE:/x', 'TRACE', '/x', true, 'allow TRACE:/x'],
    // `deny` with `*` matches TRACE too: first match wins.
    ['deny *:/x, allow TRACE:/x', 'TRACE', '/x', false, 'deny *:/x'],
    ['deny *:/admin/*', 'GET', '/admin/a', false, 'deny *:/admin/*'],
    ['deny GET:/admin/*', 'HEAD', '/admin/a', true, 'allow HEAD:*'],
  ]
  test.each(OVERRIDES)('%p: %s %s shadowed %p, by %p', (text, method, path, shadowed, by) => {
    const decision = compileShadowRules(text).shouldShadow(method, path)
    expect(decision.shadow).toBe(shadowed)
    expect(decision.rule.text).toBe(by)
  })

  test('a denied request names the rule that denied it', () => {
    const decision = compileShadowRules('allow GET:/a, deny GET:/admin/*').shouldShadow(
      'GET',
      '/admin/x',
    )
    expect(decision.shadow).toBe(false)
    expect(decision.rule).toMatchObject({
      action: 'deny',
      method: 'GET',
      text: 'deny GET:/admin/*',
      source: 'user',
      position: 2,
      pattern: { source: '/admin/*', kind: 'prefix' },
    })
  })

  test('repeated calls return the same decision object (no per-request allocation)', () => {
    const rules = compileShadowRules('deny GET:/a')
    expect(rules.shouldShadow('GET', '/a')).toBe(rules.shouldShadow('get', '/A'))
    expect(rules.shouldShadow('GET', '/b')).toBe(rules.shouldShadow('GET', '/c'))
  })
})

describe('case-insensitivity', () => {
  test.each([
    ['deny GET:/Admin/*', 'GET', '/admin/X'],
    ['deny get:/admin/*', 'GET', '/ADMIN/x'],
    ['DENY Get:/admin/*', 'gEt', '/Admin/x'],
    ['Deny *:*.JSON', 'get', '/a/B.json'],
    ['deny patch:/x', 'PATCH', '/X'],
  ])('%p denies %p %p', (text, method, path) => {
    expect(compileShadowRules(text).shouldShadow(method, path).shadow).toBe(false)
  })

  test('a lower-case PATCH (fetch keeps its case) still meets the base rule', () => {
    expect(compileShadowRules('').shouldShadow('patch', '/x').shadow).toBe(false)
  })
})

describe('doubled slashes', () => {
  test('are merged in the request path before matching', () => {
    const rules = compileShadowRules('deny GET:/api/users/*')
    expect(rules.shouldShadow('GET', '//api///users//1').shadow).toBe(false)
  })

  test('are kept when the pattern itself contains "//"', () => {
    const rules = compileShadowRules('deny GET:/api//users')
    expect(rules.shouldShadow('GET', '/api//users').shadow).toBe(false)
    expect(rules.shouldShadow('GET', '/api/users').shadow).toBe(true)
    expect(rules.shouldShadow('GET', '/api///users').shadow).toBe(true)
  })

  test('are merged for one rule and kept for another in the same list', () => {
    const rules = compileShadowRules('allow GET://raw/*,deny GET:/raw/*')
    expect(rules.shouldShadow('GET', '//raw/x')).toMatchObject({
      shadow: true,
      rule: { position: 1 },
    })
    expect(rules.shouldShadow('GET', '/raw//x')).toMatchObject({
      shadow: false,
      rule: { position: 2 },
    })
  })
})

describe('request paths', () => {
  test('the query string is not matched', () => {
    const rules = compileShadowRules('deny GET:*.json,deny GET:/exact')
    expect(rules.shouldShadow('GET', '/a.json?format=xml').shadow).toBe(false)
    expect(rules.shouldShadow('GET', '/exact?x=1').shadow).toBe(false)
    expect(rules.shouldShadow('GET', '/a?file=b.json').shadow).toBe(true)
  })

  test('an empty path is matched as "/"', () => {
    expect(compileShadowRules('deny GET:/').shouldShadow('GET', '').shadow).toBe(false)
    expect(compileShadowRules('deny GET:/').shouldShadow('GET', '?q=1').shadow).toBe(false)
  })

  test('an encoded "/" is matched as received, not decoded: it stays inside its segment', () => {
    const rules = compileShadowRules('deny GET:/a/*/c')
    expect(rules.shouldShadow('GET', '/a/b%2Fx/c').shadow).toBe(false)
    expect(rules.shouldShadow('GET', '/a/b/x/c').shadow).toBe(true)
  })

  test('encoded unreserved characters are decoded, so they cannot slip past a deny rule', () => {
    const rules = compileShadowRules('deny GET:/admin/*')
    expect(rules.shouldShadow('GET', '/%61dmin/x').shadow).toBe(false)
    expect(rules.shouldShadow('GET', '/%41DMIN/x').shadow).toBe(false)
    expect(rules.shouldShadow('GET', '/adm%69n').shadow).toBe(true)
    // The pattern is read the same way.
    expect(compileShadowRules('deny GET:/%61pi/*').shouldShadow('GET', '/api/x').shadow).toBe(false)
  })
})

describe('parseShadowRules', () => {
  test('accepts spaces around entries and between ACTION and METHOD', () => {
    const rules = parseShadowRules('  allow   get:/A  ,\tdeny\tPOST:/b  ')
    expect(rules.map(({ action, method, text }) => ({ action, method, text }))).toEqual([
      { action: 'allow', method: 'GET', text: 'allow   get:/A' },
      { action: 'deny', method: 'POST', text: 'deny\tPOST:/b' },
    ])
    expect(rules[0]?.pattern.source).toBe('/A')
  })

  test.each(['', '   ', '\t\n'])('reads blank text %p as no rules', (text) => {
    expect(parseShadowRules(text)).toEqual([])
    expect(compileShadowRules(text).rules).toHaveLength(4)
  })

  test.each(['M-SEARCH', 'PROPFIND', 'x.custom~method', 'PURGE'])(
    'accepts the method token %p',
    (method) => {
      expect(parseShadowRules(`deny ${method}:/x`)[0]?.method).toBe(method.toUpperCase())
    },
  )

  test('keeps a colon in the path', () => {
    expect(parseShadowRules('deny GET:/a:b')[0]?.pattern.source).toBe('/a:b')
  })

  const errors: [string, number, string][] = [
    ['allow GET', 1, 'rule 1 "allow GET" must be "ACTION METHOD:path"'],
    ['allow GET:/a,allow GET', 2, 'rule 2 "allow GET" must be "ACTION METHOD:path"'],
    ['allowGET:/a', 1, 'rule 1 "allowGET:/a" must be "ACTION METHOD:path"'],
    ['allow GET /a', 1, 'rule 1 "allow GET /a" must be "ACTION METHOD:path"'],
    ['allow GET:/a deny', 1, 'rule 1 "allow GET:/a deny" must be "ACTION METHOD:path"'],
    ['allow :/a', 1, 'rule 1 "allow :/a" must be "ACTION METHOD:path"'],
    ['allow GET:/a,,deny GET:/b', 2, 'rule 2 "" must be "ACTION METHOD:path"'],
    ['allow GET:/a,', 2, 'rule 2 "" must be "ACTION METHOD:path"'],
    ['permit GET:/a', 1, 'rule 1 "permit GET:/a" has action "permit"; expected "allow" or "deny"'],
    ['allow G(T:/a', 1, 'rule 1 "allow G(T:/a" has method "G(T"; expected an HTTP method or "*"'],
    ['allow G*T:/a', 1, 'rule 1 "allow G*T:/a" has method "G*T"; expected an HTTP method or "*"'],
    ['allow GET:', 1, 'rule 1 "allow GET:" has path ""; expected a non-empty pattern'],
    [
      'deny GET:/x,allow GET:api/*',
      2,
      'rule 2 "allow GET:api/*" has path "api/*"; expected a pattern that starts with "/" or "*"',
    ],
    [
      'deny GET:/a?b=1',
      1,
      'rule 1 "deny GET:/a?b=1" has path "/a?b=1"; expected a pattern without "?" (the query string is never matched)',
    ],
    [
      'deny GET:*a*b*',
      1,
      'rule 1 "deny GET:*a*b*" has path "*a*b*"; expected a "/" after the leading "*" of a segment pattern',
    ],
  ]
  for (const [text, position, message] of errors) {
    test(`rejects ${JSON.stringify(text)} naming rule ${position}`, () => {
      const error = thrown(() => compileShadowRules(text))
      expect(error).toBeInstanceOf(ShadowRuleError)
      expect(error).toMatchObject({ code: 'invalid-shadow-rule', position, message })
    })
  }

  test('the error carries the rule text for the startup message', () => {
    const error = thrown(() => parseShadowRules('allow GET:/a,  deny  ')) as ShadowRuleError
    expect(error.rule).toBe('deny')
    expect(error.reason).toBe('must be "ACTION METHOD:path"')
  })
})
