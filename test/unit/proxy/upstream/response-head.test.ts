import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { keepAliveHintMs, parseHead, ResponseProtocolError, statusProblem } from '../../../../src/proxy/upstream/response-head.ts'

describe('parseHead', () => {
  test('repeated fields are joined with ", " as Headers joins them; Set-Cookie values are kept apart', () => {
    const head = parseHead('HTTP/1.1 200 OK\r\nVary: a\r\nvary:  b \r\nSet-Cookie: x=1\r\nSet-Cookie: y=2')
    expect(head).toEqual({ status: 200, fields: { vary: 'a, b' }, setCookies: ['x=1', 'y=2'] })
    const headers = new Headers([
      ['vary', 'a'],
      ['vary', 'b'],
    ])
    expect(headers.get('vary')).toBe(head.fields['vary']!)
  })

  test('a status line without a reason phrase is accepted', () => {
    expect(parseHead('HTTP/1.1 204').status).toBe(204)
  })

  test('names are taken in lower case, whatever case they came in; a name that is no token is refused by its lower-case form', () => {
    const head = parseHead('HTTP/1.1 200 OK\r\ncontent-type: a\r\nX-MiXed: b\r\nDATE: c')
    expect(head.fields).toEqual({ 'content-type': 'a', 'x-mixed': 'b', date: 'c' })
    for (const [name, lowered] of [
      ['X-\u00c0b', 'x-\u00e0b'],
      ['x-\u00c0', 'x-\u00e0'],
      ['x-\u00e9', 'x-\u00e9'],
      ['X Y', 'x y'],
    ]) {
      expect(() => parseHead(`HTTP/1.1 200 OK\r\n${name}: v`)).toThrow(`bad header name ${JSON.stringify(lowered)}`)
    }
  })

  test('a head is read as its lines split at CRLF or LF would read, each value trimmed; what one refuses the other refuses with the same words', () => {
    // The plain reading by lines, which parseHead does by offsets without a string per line.
    const byLines = (text: string) => {
      const lines = text.split(/\r?\n/)
      const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]!)
      if (status === null) return `bad status line ${JSON.stringify(lines[0]!.slice(0, 80))}`
      const fields: Record<string, string> = {}
      const setCookies: string[] = []
      for (const line of lines.slice(1)) {
        const colon = line.indexOf(':')
        if (colon <= 0) return `bad header line ${JSON.stringify(line.slice(0, 80))}`
        const name = line.slice(0, colon).toLowerCase()
        if (!/^[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name)) return `bad header name ${JSON.stringify(name)}`
        const value = line.slice(colon + 1).trim()
        if (!/^[\t\x20-\x7e\x80-\xff]*$/.test(value)) return `bad value of header ${JSON.stringify(name)}`
        if (name === 'content-length' && value.includes(',')) return `bad Content-Length ${JSON.stringify(value)}`
        if (name === 'set-cookie') setCookies.push(value)
        else fields[name] = fields[name] === undefined ? value : `${fields[name]}, ${value}`
      }
      const code = Number(status[1])
      if (statusProblem(code) !== undefined) return statusProblem(code)!
      return { status: code, fields, setCookies }
    }
    const piece = fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.0 404', 'X-A', 'set-cookie', 'Vary', ':', ': ', ' ', '\t', '\r', '\n', '\r\n', '\xa0', '\x0b', 'v', 'a,b', 'Content-Length', '1', 'é', '\x7f')
    const head = fc
      .tuple(fc.constantFrom('HTTP/1.1 200 OK', 'HTTP/1.1 204', 'HTTP/1.1 099 x', 'HTTP/2 200', ''), fc.array(fc.array(piece, { maxLength: 8 }).map((p) => p.join('')), { maxLength: 6 }), fc.constantFrom('\r\n', '\n'))
      .map(([status, lines, eol]) => [status, ...lines].join(eol))
    fc.assert(
      fc.property(head, (text) => {
        const expected = byLines(text)
        let actual: unknown
        try {
          const parsed = parseHead(text)
          actual = { status: parsed.status, fields: { ...parsed.fields }, setCookies: parsed.setCookies }
        } catch (error) {
          expect(error).toBeInstanceOf(ResponseProtocolError)
          actual = (error as Error).message.replace(/^bad response: /, '')
        }
        expect(actual).toEqual(expected)
      }),
      { numRuns: 2000 },
    )
  })

  test('fields named like Object properties are plain fields', () => {
    const head = parseHead('HTTP/1.1 200 OK\r\nConstructor: c1\r\n__proto__: p\r\ntoString: t')
    expect(head.fields['constructor']).toBe('c1')
    expect(head.fields['__proto__']).toBe('p')
    expect(head.fields['tostring']).toBe('t')
  })
})

describe('status codes (RFC 9110 section 15: valid ones are 100 to 599)', () => {
  test.each([
    ['000', 'status 0 outside 100..599'],
    ['099', 'status 99 outside 100..599'],
    ['600', 'status 600 outside 100..599'],
    ['999', 'status 999 outside 100..599'],
  ])('%s is a bad response, not a capture of a strange status', (code, what) => {
    expect(() => parseHead(`HTTP/1.1 ${code} X\r\nContent-Length: 0`)).toThrow(new ResponseProtocolError(what))
  })

  test.each(['20', '1000', '2x0', '-20', ' 200'])('a status of other than three digits (%p) is a bad status line', (code) => {
    expect(() => parseHead(`HTTP/1.1 ${code} X`)).toThrow(ResponseProtocolError)
    expect(() => parseHead(`HTTP/1.1 ${code} X`)).toThrow(/^bad response: bad status line/)
  })

  test('every three-digit code from 100 to 599 is taken as it is; every other one is refused', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 999 }), (status) => {
        const line = `HTTP/1.1 ${String(status).padStart(3, '0')} Any`
        const valid = status >= 100 && status <= 599
        expect(statusProblem(status) === undefined).toBe(valid)
        if (valid) expect(parseHead(line).status).toBe(status)
        else expect(() => parseHead(line)).toThrow(ResponseProtocolError)
      }),
      { numRuns: 300 },
    )
  })
})

describe('keepAliveHintMs', () => {
  test.each([
    [undefined, undefined],
    ['timeout=5', 5000],
    ['timeout=5, max=100', 5000],
    ['max=100, Timeout = 2', 2000],
    ['timeout="3"', 3000],
    ['timeout=5, timeout=1', 1000],
    ['timeout=0', 0],
    ['timeout=-1', undefined],
    ['timeout=1.5', undefined],
    ['max=100', undefined],
    ['', undefined],
  ])('Keep-Alive: %p → %p ms', (value, ms) => {
    const fields: Record<string, string> = value === undefined ? {} : { 'keep-alive': value }
    expect(keepAliveHintMs(fields)).toBe(ms)
  })
})
