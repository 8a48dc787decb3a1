import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { compileShadowRules } from '../../../../src/proxy/policy/shadow-rules.ts'

/**
 * A naive reading of the rules (docs/proxy.md "Which requests are shadowed"),
 * written independently
 * of the implementation: no precompilation, per-character glob for the
 * segment form, slices instead of startsWith/endsWith/includes.
 */
function referenceDecision(ruleText: string, method: string, rawPath: string) {
  const entries = ruleText === '' ? [] : ruleText.split(',').map((entry) => entry.trim())
  const all = [...entries, 'allow GET:*', 'allow HEAD:*', 'allow OPTIONS:*', 'deny *:*']
  let path = rawPath.split('?')[0] as string
  if (path === '') path = '/'
  for (const [index, entry] of all.entries()) {
    const [action, target] = entry.split(/\s+/) as [string, string]
    const colon = target.indexOf(':')
    const ruleMethod = target.slice(0, colon)
    const pattern = target.slice(colon + 1)
    if (ruleMethod === '*') {
      // TRACE is allowed only by a rule that names it.
      if (method.toUpperCase() === 'TRACE' && action.toLowerCase() === 'allow') continue
    } else if (ruleMethod.toUpperCase() !== method.toUpperCase()) continue
    if (referenceMatch(pattern, path)) {
      return { shadow: action.toLowerCase() === 'allow', index }
    }
  }
  throw new Error('the base rules end with deny *:*, which matches every request')
}

function referenceMatch(rawPattern: string, rawPath: string): boolean {
  const pattern = rawPattern.toLowerCase()
  let path = rawPath.toLowerCase()
  if (!pattern.includes('//')) {
    while (path.includes('//')) path = path.replace('//', '/')
  }
  const stars = pattern.split('').filter((ch) => ch === '*').length
  const first = pattern[0] === '*'
  const last = pattern[pattern.length - 1] === '*'
  if (pattern === '*') return true
  if (stars === 0) return path === pattern
  if (stars === 1 && last) return path.slice(0, pattern.length - 1) === pattern.slice(0, -1)
  if (stars === 1 && first) {
    const suffix = pattern.slice(1)
    return path.length >= suffix.length && path.slice(path.length - suffix.length) === suffix
  }
  if (stars === 2 && first && last) {
    const middle = pattern.slice(1, -1)
    for (let i = 0; i + middle.length <= path.length; i++) {
      if (path.slice(i, i + middle.length) === middle) return true
    }
    return false
  }
  return glob(pattern, path)
}

/** `*` matches any run of characters other than `/`. */
function glob(pattern: string, path: string): boolean {
  if (pattern === '') return path === ''
  if (pattern[0] === '*') {
    for (let i = 0; i <= path.length; i++) {
      if (glob(pattern.slice(1), path.slice(i))) return true
      if (path[i] === '/') return false
    }
    return false
  }
  return path[0] === pattern[0] && glob(pattern.slice(1), path.slice(1))
}

const pathChar = fc.constantFrom('a', 'b', 'A', 'B', '/', '/', '.', '-', '%2F', '~')
const pathText = fc.array(pathChar, { maxLength: 12 }).map((chars) => chars.join(''))
const requestPath = fc
  .tuple(pathText, fc.option(fc.constantFrom('?x=1', '?a/b', '?'), { nil: undefined }))
  .map(([path, query]) => `/${path}${query ?? ''}`)
const patternText = fc
  .array(fc.constantFrom('a', 'b', 'A', '/', '/', '.', '*', '*', '-'), {
    minLength: 1,
    maxLength: 8,
  })
  .map((chars) => chars.join(''))
  .filter((pattern) => pattern[0] === '/' || pattern[0] === '*')
const method = fc.constantFrom(
  'GET',
  'get',
  'HEAD',
  'POST',
  'post',
  'PUT',
  'DELETE',
  'PATCH',
  'OPTIONS',
  'TRACE',
  'trace',
  'PURGE',
  'MOVE',
)
const ruleMethod = fc.constantFrom('*', 'GET', 'get', 'POST', 'Patch', 'HEAD', 'DELETE', 'TRACE', 'purge')
const rule = fc
  .tuple(fc.constantFrom('allow', 'deny', 'ALLOW'), ruleMethod, patternText)
  .map(([action, m, pattern]) => `${action} ${m}:${pattern}`)
  .filter((text) => {
    try {
      compileShadowRules(text)
      return true
    } catch {
      return false
    }
  })
const segment = fc
  .array(fc.constantFrom('a', 'b', 'Z', '.', '-', '_', '%2F'), { minLength: 1, maxLength: 5 })
  .map((chars) => chars.join(''))

describe('shadow rules (properties)', () => {
  test('a bare `*` matches every path', () => {
    const denyAll = compileShadowRules('deny GET:*')
    const allowAll = compileShadowRules('allow *:*')
    fc.assert(
      fc.property(fc.string(), method, (path, m) => {
        expect(denyAll.shouldShadow('GET', path).shadow).toBe(false)
        // Every method but TRACE, which only a rule naming it allows.
        expect(allowAll.shouldShadow(m, path).shadow).toBe(m.toUpperCase() !== 'TRACE')
      }),
    )
  })

  test('a segment `*` never crosses `/`', () => {
    fc.assert(
      fc.property(
        segment,
        segment,
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        (a, b, middle) => {
          const rules = compileShadowRules(`deny GET:/${a}/*/${b}`)
          const denied = !rules.shouldShadow('GET', `/${a}/${middle.join('/')}/${b}`).shadow
          expect(denied).toBe(middle.length === 1)
        },
      ),
    )
  })

  test('a trailing-`*` prefix pattern matches every extension of its prefix', () => {
    const prefix = pathText.map((text) => `/${text}`).filter((text) => !text.includes('//'))
    fc.assert(
      fc.property(
        prefix,
        fc.string().map((text) => text.replace(/\?/g, '')),
        (p, extension) => {
          const rules = compileShadowRules(`deny GET:${p}*`)
          expect(rules.shouldShadow('GET', p + extension).shadow).toBe(false)
          expect(rules.shouldShadow('GET', (p + extension).toUpperCase()).shadow).toBe(false)
        },
      ),
    )
  })

  test('a leading-`*` suffix pattern matches every path ending with its suffix', () => {
    fc.assert(
      fc.property(segment, pathText, (suffix, before) => {
        const rules = compileShadowRules(`deny GET:*.${suffix}`)
        expect(rules.shouldShadow('GET', `/${before}.${suffix}`).shadow).toBe(false)
      }),
    )
  })

  test('decisions equal a naive first-match-wins reference implementation', () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 6 }), method, requestPath, (rules, m, path) => {
        const text = rules.join(',')
        const compiled = compileShadowRules(text)
        const decision = compiled.shouldShadow(m, path)
        const reference = referenceDecision(text, m, path)
        expect(decision.shadow).toBe(reference.shadow)
        expect(decision.rule).toBe(compiled.rules[reference.index]!)
      }),
      { numRuns: 2000 },
    )
  })

  test('percent-encoding an unreserved character never changes the decision', () => {
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 6 }),
        method,
        requestPath,
        fc.array(fc.boolean(), { minLength: 16, maxLength: 16 }),
        fc.boolean(),
        (rules, m, path, encodeAt, upperHex) => {
          const compiled = compileShadowRules(rules.join(','))
          // Encode some of the unreserved characters before the query.
          let index = 0
          let inQuery = false
          const encoded = [...path]
            .map((char) => {
              if (char === '?') inQuery = true
              if (inQuery || !/[A-Za-z0-9\-._~]/.test(char) || !encodeAt[index++ % 16]) return char
              const hex = char.charCodeAt(0).toString(16)
              return `%${upperHex ? hex.toUpperCase() : hex}`
            })
            .join('')
          expect(compiled.shouldShadow(m, encoded)).toEqual(compiled.shouldShadow(m, path))
        },
      ),
      { numRuns: 1000 },
    )
  })
})
