import { afterEach, describe, expect, spyOn, test } from 'bun:test'
import fc from 'fast-check'
import zlib from 'node:zlib'
import {
  compileCaptureOptions,
  compareResponses,
  DEFAULT_DIFF_CONFIG,
  processCapture,
  REDACTED,
  type CaptureInput,
  type CaptureOptions,
  type HeaderMap,
} from '../../../src/diff/index.ts'
import { json, renderPath, type Json, type Segment } from './json-arbitraries.ts'

const encode = (text: string) => new TextEncoder().encode(text)
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const options = (
  redactedFields: string[] = [],
  extra: Partial<CaptureOptions> = {},
): CaptureOptions => ({
  diff: DEFAULT_DIFF_CONFIG,
  redactedFields,
  ...extra,
})
const capture = (live: unknown, shadow: unknown, headers: HeaderMap = {}): CaptureInput => ({
  request: {
    headers: { Authorization: ['Bearer request-secret'], 'Content-Type': ['application/json'] },
    body: encode('{"password":"p1","user":"u"}'),
  },
  live: {
    status: 200,
    headers: { 'Content-Type': ['application/json'], ...headers },
    body: encode(JSON.stringify(live)),
  },
  shadow: {
    status: 200,
    headers: { 'Content-Type': ['application/json'], ...headers },
    body: encode(JSON.stringify(shadow)),
  },
})

afterEach(() => {
  // spyOn(JSON, 'parse') in one test must not leak into the next.
  ;(JSON.parse as unknown as { mockRestore?: () => void }).mockRestore?.()
})

describe('processCapture: storage', () => {
  test('redacts the request: default headers and configured body fields', () => {
    const out = processCapture(capture({}, {}), options(['body.password']))
    expect(out.request.headers.Authorization).toEqual([REDACTED])
    expect(JSON.parse(decode(out.request.body))).toEqual({ password: REDACTED, user: 'u' })
  })

  test('a key given twice never keeps a secret: the body is stored re-written from what was parsed', () => {
    const raw = (text: string): CaptureInput => ({
      request: { headers: {}, body: new Uint8Array(0) },
      live: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: encode(text) },
      shadow: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: encode(text) },
    })
    for (const text of ['{"user":{"token":"S3CRET"},"user":{"name":"a"}}', '{"token":"S3CRET","token":"[REDACTED]"}']) {
      const out = processCapture(raw(text), options(['body.**.token']))
      expect(decode(out.live.body)).not.toContain('S3CRET')
      expect(decode(out.shadow.body)).not.toContain('S3CRET')
    }
    // A stray byte that is not UTF-8, JSON all the same (read leniently): the same.
    const stray = new Uint8Array([...encode('{"token":"S3CRET","token":"[REDACTED]","x":"'), 0xff, ...encode('"}')])
    const lenient: CaptureInput = {
      request: { headers: {}, body: new Uint8Array(0) },
      live: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: stray },
      shadow: { status: 200, headers: { 'Content-Type': ['application/json'] }, body: encode('{}') },
    }
    expect(decode(processCapture(lenient, options(['body.token'])).live.body)).not.toContain('S3CRET')
    // Without a key given twice, a body redaction does not change is kept byte for byte.
    const plain = raw('{"user":{"name":"a"},  "n":1}')
    expect(processCapture(plain, options(['body.**.token'])).live.body).toBe(plain.live.body)
  })

  test('keeps a body byte for byte when redaction changes nothing', () => {
    const input = capture({ a: 1 }, { a: 2 })
    const out = processCapture(input, options(['body.password']))
    expect(out.live.body).toBe(input.live.body)
    expect(out.shadow.body).toBe(input.shadow.body)
    expect(out.live.headers).toBe(input.live.headers)
  })

  test('stores a redacted compressed body as plain UTF-8 JSON with headers to match', () => {
    // Latin-1 text, gzip-compressed: both must be undone before redaction.
    const latin1Gzip = (value: unknown) =>
      new Uint8Array(zlib.gzipSync(Buffer.from(JSON.stringify(value), 'latin1')))
    const headers = {
      'Content-Type': ['application/json; charset=ISO-8859-1'],
      'Content-Encoding': ['gzip'],
      'Content-Length': ['40'],
    }
    const input: CaptureInput = {
      request: { headers: {}, body: new Uint8Array() },
      live: { status: 200, headers, body: latin1Gzip({ token: 't0p', v: 'é' }) },
      shadow: {
        status: 200,
        headers: { ...headers, 'Content-Length': ['42'] },
        body: latin1Gzip({ token: 'other', v: 'é' }),
      },
    }
    const out = processCapture(input, options(['body.token']))
    expect(JSON.parse(decode(out.live.body))).toEqual({ token: REDACTED, v: 'é' })
    expect(out.live.headers).toEqual({ 'Content-Type': ['application/json; charset=utf-8'] })
    expect(JSON.parse(decode(out.shadow.body))).toEqual({ token: REDACTED, v: 'é' })
    // Compared as received: the stored copies' rewritten headers are no difference.
    expect(out.comparison).toEqual({ kind: 'match' })
  })

  test('stores a non-JSON body as it is', () => {
    const input = capture({}, {})
    input.live.body = encode('password=p1&user=u')
    const out = processCapture(input, options(['body.password']))
    expect(out.live.body).toBe(input.live.body)
  })

  test('a redacted whole body is stored as [REDACTED], JSON or not', () => {
    const input = capture({ a: 1 }, { a: 2 })
    input.shadow.body = encode('plain text')
    const out = processCapture(input, options(['body']))
    expect(decode(out.live.body)).toBe(JSON.stringify(REDACTED))
    expect(decode(out.shadow.body)).toBe(REDACTED)
    expect(out.comparison).toEqual({ kind: 'match' })
  })

  test('a failed upstream keeps its error text and gives an error verdict', () => {
    const input = capture({ a: 1 }, {})
    input.shadow = { status: 0, headers: {}, body: encode('timeout after 10s') }
    const out = processCapture(input, options(['body.a']))
    expect(decode(out.shadow.body)).toBe('timeout after 10s')
    expect(out.comparison).toEqual({ kind: 'error', cause: 'shadow failed: timeout after 10s' })
    expect(JSON.parse(decode(out.live.body))).toEqual({ a: REDACTED })
  })

  test('a large body too deeply nested to parse is stored as [REDACTED] when body fields are redacted', () => {
    const deep = '['.repeat(100_000) + '"secret"' + ']'.repeat(100_000)
    const input = capture({}, {})
    input.live.body = encode(deep)
    const out = processCapture(input, options(['body.**.password']))
    expect(decode(out.live.body)).toBe(REDACTED)
    expect(processCapture(input, options()).live.body).toBe(input.live.body)
    // Compared as text with a plain side, the patch shows it as stored, not as sent.
    input.shadow = { status: 200, headers: { 'Content-Type': ['application/json'] }, body: encode(deep) }
    input.live = { status: 200, headers: { 'Content-Type': ['text/plain'] }, body: encode('plain') }
    const compared = processCapture(input, options(['body.**.password'])).comparison
    expect(compared).toMatchObject({ kind: 'diff', ops: [expect.anything(), { op: 'replace', path: '/body', value: REDACTED }] })
  })

  test('a body meant as JSON that does not parse strictly keeps no secret when body fields are redacted', () => {
    const input = capture({}, {})
    // A stray Latin-1 byte: read leniently, redacted, stored as UTF-8 JSON.
    input.live.body = new Uint8Array([...encode('{"password":"p","name":"Ren'), 0xe9, ...encode('"}')])
    // Not JSON, yet shaped like it: its fields cannot be told apart.
    input.shadow.body = encode('{"password":"p"} and then some')
    const out = processCapture(input, options(['body.password']))
    expect(JSON.parse(decode(out.live.body))).toEqual({ password: REDACTED, name: 'Ren\ufffd' })
    expect(decode(out.shadow.body)).toBe(REDACTED)
    // Without body redaction, both are stored exactly as received.
    const plain = processCapture(input, options())
    expect(plain.live.body).toBe(input.live.body)
    expect(plain.shadow.body).toBe(input.shadow.body)
  })

  test('two bodies that differ still differ once both are stored as [REDACTED]', () => {
    const input = capture({}, {})
    input.live.headers = input.shadow.headers = { 'Content-Type': ['application/x-ndjson'] }
    input.live.body = encode('{"id":1}\n{"id":2}\n')
    input.shadow.body = encode('{"id":1}\n{"id":3}\n')
    for (const fields of [[], ['body.password']]) {
      expect(processCapture(input, options(fields)).comparison.kind).toBe('diff')
    }
    expect(processCapture(input, options(['body.password'])).comparison).toEqual({ kind: 'diff', ops: [{ op: 'replace', path: '/body', value: REDACTED }] })
    // The same bytes are still a match.
    input.shadow.body = input.live.body
    expect(processCapture(input, options(['body.password'])).comparison.kind).toBe('match')
  })

  test('text that does not start like JSON is stored as it is, body fields redacted or not', () => {
    const input = capture({}, {})
    input.live.headers = { 'Content-Type': ['text/html'] }
    input.live.body = encode('<p>password: not a field</p>')
    expect(processCapture(input, options(['body.password'])).live.body).toBe(input.live.body)
  })

  test('a large non-JSON body full of brackets is stored as it is', () => {
    const input = capture({}, {})
    input.live.body = encode('log: ' + '['.repeat(100_000))
    expect(processCapture(input, options(['body.**.password'])).live.body).toBe(input.live.body)
  })

  test('a deep body below the scan size is parsed, redacted and stored without overflow', () => {
    let nested = '{"password":"p"}'
    for (let i = 0; i < 10_000; i++) nested = `{"n":${nested}}`
    const input = capture({}, {})
    input.live.body = encode(nested)
    const out = processCapture(input, options(['body.**.password']))
    const stored = decode(out.live.body)
    expect(stored).toContain(`"password":"${REDACTED}"`)
    expect(stored).not.toContain('"p"')
  })
})

describe('processCapture: comparison', () => {
  test('compares the redacted responses; redacted fields never differ', () => {
    const out = processCapture(
      capture({ token: 'a', v: 1 }, { token: 'b', v: 2 }),
      options(['body.token']),
    )
    expect(out.comparison).toEqual({
      kind: 'diff',
      ops: [{ op: 'replace', path: '/body/v', value: 2 }],
    })
  })

  test('parses each body once, for redaction and comparison together', () => {
    const parse = spyOn(JSON, 'parse')
    processCapture(capture({ token: 'a', v: 1 }, { token: 'b', v: 2 }), options(['body.token']))
    expect(parse).toHaveBeenCalledTimes(3)
  })

  test('does not parse equal bodies when no body field is redacted', () => {
    const parse = spyOn(JSON, 'parse')
    const out = processCapture(capture({ v: 1 }, { v: 1 }), options())
    expect(parse).toHaveBeenCalledTimes(0)
    expect(out.comparison).toEqual({ kind: 'match' })
  })

  test('compiled options give the same result as plain ones', () => {
    const input = capture({ token: 'a', v: [1, 2] }, { token: 'b', v: [1, 3] })
    const plain = options(['body.token'], {
      diff: { ...DEFAULT_DIFF_CONFIG, ignored_fields: ['body.x'] },
    })
    expect(processCapture(input, compileCaptureOptions(plain))).toEqual(
      processCapture(input, plain),
    )
  })

  test('does not modify its input', () => {
    const input = capture({ token: 'a' }, { token: 'b' })
    const before = structuredClone(input)
    processCapture(input, options(['body.token']))
    expect(input).toEqual(before)
  })
})

describe('processCapture: redacted values never appear anywhere in the output (fast-check)', () => {
  /** A body with secrets planted at some places, and the field paths that name those places. */
  const planted = fc
    .tuple(
      fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), json, { maxKeys: 4 }),
      fc.array(
        fc.tuple(
          fc.array(fc.constantFrom('a', 'b.c', 'x*', '#', 'k', '\\'), {
            minLength: 1,
            maxLength: 3,
          }),
          fc.boolean(),
        ),
        {
          minLength: 1,
          maxLength: 3,
        },
      ),
    )
    .map(([base, plants]) => {
      const body = structuredClone(base) as { [key: string]: Json }
      const fields: string[] = []
      plants.forEach(([keys, inArray], n) => {
        const secret = `SECRET-${n}-${keys.length}`
        let node = body
        for (const key of keys.slice(0, -1)) {
          if (typeof node[key] !== 'object' || node[key] === null || Array.isArray(node[key]))
            node[key] = {}
          node = node[key] as { [key: string]: Json }
        }
        const last = keys[keys.length - 1]!
        node[last] = inArray ? [secret, { deeper: secret }] : secret
        const segments: Segment[] = ['body', ...keys].map((literal) => ({ literal }))
        fields.push(renderPath(segments))
      })
      return { body, fields }
    })

  /**
   * A side that is not JSON makes the other one be compared, and shown, as
   * text; a side meant as JSON that does not parse strictly (a stray
   * Latin-1 byte, a Content-Encoding nobody knows, trailing garbage) keeps
   * its secrets no more than a JSON one.
   */
  const form = fc.constantFrom('json', 'json', 'text', 'binary', 'latin1', 'unknown-coding', 'trailing-garbage')
  const otherForm = (kind: string, body: Json): { headers: HeaderMap; body: Uint8Array } => {
    const text = JSON.stringify(body)
    switch (kind) {
      case 'text':
        return { headers: { 'Content-Type': ['text/plain'] }, body: encode('upstream error') }
      case 'binary':
        return { headers: { 'Content-Type': ['application/octet-stream'] }, body: new Uint8Array([0xff, 0xfe, 0x00, 0x9f]) }
      case 'latin1': {
        const bytes = encode(text.replace(/^\{/, '{"caf\u00e9":1,').replace('{"caf\u00e9":1,}', '{"caf\u00e9":1}'))
        return { headers: { 'Content-Type': ['application/json'] }, body: bytes.map((b) => (b === 0xc3 ? 0x20 : b === 0xa9 ? 0xe9 : b)) }
      }
      case 'unknown-coding':
        return { headers: { 'Content-Type': ['application/json'], 'Content-Encoding': ['x-custom'] }, body: encode(text) }
      default:
        return { headers: { 'Content-Type': ['application/json'] }, body: encode(`${text} trailing`) }
    }
  }

  test('in stored headers, stored bodies and the patch; for the standalone comparison too', () => {
    fc.assert(
      fc.property(planted, planted, fc.boolean(), form, form, (live, shadow, gzip, liveForm, shadowForm) => {
        const liveText = JSON.stringify(live.body)
        const input: CaptureInput = {
          request: {
            headers: {
              authorization: ['Bearer SECRET-auth'],
              'X-Api-Key': ['SECRET-key'],
              'x-custom': ['SECRET-custom'],
            },
            body: encode(JSON.stringify(shadow.body)),
          },
          live: {
            status: 200,
            headers: {
              'Set-Cookie': ['SECRET-cookie'],
              ...(gzip ? { 'Content-Encoding': ['gzip'] } : {}),
            },
            body: gzip ? new Uint8Array(zlib.gzipSync(liveText)) : encode(liveText),
          },
          shadow: {
            status: 200,
            headers: { COOKIE: ['SECRET-c2'] },
            body: encode(JSON.stringify(shadow.body)),
          },
        }
        if (liveForm !== 'json') input.live = { status: 200, ...otherForm(liveForm, live.body) }
        if (shadowForm !== 'json') input.shadow = { status: 200, ...otherForm(shadowForm, shadow.body) }
        const captureOptions = options([...live.fields, ...shadow.fields, 'headers.X-Custom'])
        const out = processCapture(input, captureOptions)
        const stored = [
          JSON.stringify([
            out.request.headers,
            out.live.headers,
            out.shadow.headers,
            out.comparison,
            compareResponses(input.live, input.shadow, captureOptions),
          ]),
          decode(out.request.body),
          decode(out.live.body),
          decode(out.shadow.body),
        ].join('\n')
        expect(stored).not.toContain('SECRET')
      }),
      { numRuns: 300 },
    )
  })
})
