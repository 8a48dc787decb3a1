import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import type { PatchOp } from '../../../src/diff/index.ts'
import {
  canonicalSignature,
  diffSignature,
  errorSignature,
  MAX_SIGNATURE_OPS,
  signatureId,
  signatureOf,
  type Endpoint,
  type Signature,
} from '../../../src/insights/index.ts'

const ENDPOINT: Endpoint = { method: 'GET', template: '/v2/products/{id}' }
const encoder = new TextEncoder()
const ok = (body = '{}') => ({ status: 200, body: encoder.encode(body) })
const failed = (text: string) => ({ status: 0, body: encoder.encode(text) })

type Op = Pick<PatchOp, 'op' | 'path'>
const PRICE: Op[] = [{ op: 'replace', path: '/body/price' }]
const withFailures = (live: string | undefined, shadow: string | undefined) =>
  signatureOf(ENDPOINT, {
    live: live === undefined ? ok() : failed(live),
    shadow: shadow === undefined ? ok() : failed(shadow),
    ops: [],
  })

describe('diff signatures', () => {
  test('a capture without a diff has none', () => {
    expect(signatureOf(ENDPOINT, { live: ok(), shadow: ok(), ops: [] })).toBeUndefined()
    expect(diffSignature(ENDPOINT, [])).toBeUndefined()
  })

  test('holds the endpoint and the sorted, de-duplicated, generalised (op, path) set', () => {
    const signature = signatureOf(ENDPOINT, {
      live: ok(),
      shadow: ok(),
      ops: [
        { op: 'remove', path: '/body/x' },
        { op: 'replace', path: '/body/items/3/price' },
        { op: 'add', path: '/body/stock/sku-15028/reserved' },
        { op: 'replace', path: '/body/items/0/price' },
        { op: 'add', path: '/body/x' },
      ],
    })
    expect(signature).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      kind: 'diff',
      method: 'GET',
      template: '/v2/products/{id}',
      overflow: false,
      ops: [
        { op: 'replace', path: '/body/items/*/price' },
        { op: 'add', path: '/body/stock/{key}/reserved' },
        { op: 'add', path: '/body/x' },
        { op: 'remove', path: '/body/x' },
      ],
      truncated: false,
    })
  })

  test('keeps the first operations of a very long set and says so', () => {
    const ops: Op[] = Array.from({ length: MAX_SIGNATURE_OPS + 5 }, (_, i) => ({
      op: 'add',
      path: `/body/${String.fromCharCode(97 + (i % 26))}${'z'.repeat(Math.floor(i / 26))}`,
    }))
    const signature = diffSignature(ENDPOINT, ops)!
    expect(signature.truncated).toBe(true)
    expect(signature.ops).toHaveLength(MAX_SIGNATURE_OPS)
    const short = diffSignature(ENDPOINT, ops.slice(0, MAX_SIGNATURE_OPS))!
    expect(short.truncated).toBe(false)
    expect(short.id).not.toBe(signature.id)
  })

  test('the id is fixed by the canonical text: stored ids keep their meaning', () => {
    const signature = diffSignature(ENDPOINT, PRICE)!
    expect(canonicalSignature(signature)).toBe(
      '["signature/1","GET","/v2/products/{id}","diff",false,["replace","/body/price"]]',
    )
    const sha = new Bun.CryptoHasher('sha256').update(canonicalSignature(signature)).digest('hex')
    expect(signature.id).toBe(sha.slice(0, 16))
    expect(signature.id).toBe('024f4f9242c2d465')
  })

  test('another process computes the same id', async () => {
    const module = JSON.stringify(import.meta.dir + '/../../../src/insights/index.ts')
    const script = `
      import { diffSignature } from ${module}
      const endpoint = ${JSON.stringify(ENDPOINT)}
      console.log(diffSignature(endpoint, ${JSON.stringify(PRICE)}).id)
    `
    const child = Bun.spawn([process.execPath, '--eval', script], {
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const output = await new Response(child.stdout).text()
    expect(await child.exited).toBe(0)
    expect(output.trim()).toBe(diffSignature(ENDPOINT, PRICE)!.id)
  })

  test('the endpoint is part of the signature', () => {
    const ops: Op[] = [{ op: 'replace', path: '/body/price' }]
    const ids = new Set([
      diffSignature(ENDPOINT, ops)!.id,
      diffSignature({ ...ENDPOINT, method: 'POST' }, ops)!.id,
      diffSignature({ ...ENDPOINT, template: '/v2/orders/{id}' }, ops)!.id,
    ])
    expect(ids.size).toBe(3)
  })
})

describe('error signatures', () => {
  test.each([
    ['shadow: timed out after 1s', 'timeout'],
    ['shadow: connection refused', 'refused'],
    ['shadow: connection reset', 'reset'],
    ['shadow: response too large (over 1048576 bytes)', 'too_large'],
    ['shadow: bad response: invalid status line', 'bad_response'],
    ['shadow: getaddrinfo ENOTFOUND shadow.internal', 'error'],
  ])('a failed shadow (%p) has the error class %p', (text, errorClass) => {
    const signature = signatureOf(ENDPOINT, {
      live: ok(),
      shadow: failed(text),
      ops: [{ op: 'replace', path: '/body' }],
    })
    expect(signature).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      kind: 'error',
      method: 'GET',
      template: '/v2/products/{id}',
      overflow: false,
      liveError: null,
      shadowError: errorClass as never,
    })
  })

  test('the text of the failure beyond its class does not matter', () => {
    const a = withFailures(undefined, 'shadow: timed out after 1s')
    const b = withFailures(undefined, 'shadow: timed out after 5s')
    expect(a!.id).toBe(b!.id)
  })

  test('a failed live side is told apart from a failed shadow', () => {
    const live = withFailures('live: timed out after 1s', undefined)
    const shadow = withFailures(undefined, 'shadow: timed out after 1s')
    const both = withFailures('live: connection refused', 'shadow: timed out after 1s')
    expect(live).toMatchObject({ kind: 'error', liveError: 'timeout', shadowError: null })
    expect(both).toMatchObject({ kind: 'error', liveError: 'refused', shadowError: 'timeout' })
    expect(new Set([live!.id, shadow!.id, both!.id]).size).toBe(3)
  })

  test('a body given as text classifies as bytes do', () => {
    const text = signatureOf(ENDPOINT, {
      live: ok(),
      shadow: { status: 0, body: 'shadow: connection reset' },
      ops: [],
    })
    expect(text).toEqual(errorSignature(ENDPOINT, null, 'reset'))
  })

  test('an error signature never shares an id with a diff signature', () => {
    const error = errorSignature(ENDPOINT, null, 'error')
    const diff = diffSignature(ENDPOINT, [{ op: 'replace', path: '/body' }])!
    expect(error.id).not.toBe(diff.id)
  })
})

describe('signature properties', () => {
  const RUNS = { numRuns: 300 }
  // Letters only: never identifier-like, never an index.
  const word = fc.stringMatching(/^[a-z]{1,8}$/)
  const opName = fc.constantFrom<PatchOp['op']>('add', 'remove', 'replace')

  // A path shape: fixed words and slots for an array index or an id-like key.
  const slot = fc.oneof(
    { arbitrary: word.map((text) => ({ kind: 'word' as const, text })), weight: 3 },
    { arbitrary: fc.constant({ kind: 'index' as const }), weight: 1 },
    { arbitrary: fc.constant({ kind: 'key' as const }), weight: 1 },
  )
  const shape = fc.record({ op: opName, slots: fc.array(slot, { minLength: 1, maxLength: 5 }) })
  const index = fc.nat({ max: 10_000 }).map(String)
  // Id-like keys other than digits only, which read as indices (signature-path.ts).
  const idKey = fc.oneof(
    fc.uuid(),
    fc.stringMatching(/^[a-z]{1,4}-[0-9]{3,6}$/),
    fc.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/).filter((s) => /[A-Z]/.test(s) && /[0-9]/.test(s)),
  )

  type Slot = { kind: 'word'; text: string } | { kind: 'index' | 'key' }
  type Shape = { op: PatchOp['op']; slots: Slot[] }

  const fills = (kindOf: 'index' | 'key') => (kindOf === 'index' ? index : idKey)

  function filler(shape: Shape): fc.Arbitrary<string[]> {
    return fc.tuple(
      ...shape.slots.map((slot) => (slot.kind === 'word' ? fc.constant('') : fills(slot.kind))),
    )
  }

  test('the same patch in any op order gives the same signature', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ op: opName, path: fc.array(word, { minLength: 1, maxLength: 4 }) }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.func(fc.integer()),
        (raw, rank) => {
          const ops = raw.map(({ op, path }) => ({ op, path: '/body/' + path.join('/') }))
          const shuffled = ops
            .map((op, i) => ({ op, key: rank(i) }))
            .sort((a, b) => a.key - b.key)
            .map(({ op }) => op)
          expect(diffSignature(ENDPOINT, shuffled)).toEqual(diffSignature(ENDPOINT, ops)!)
        },
      ),
      RUNS,
    )
  })

  test('changing only array indices or id-like keys keeps the signature', () => {
    fc.assert(
      fc.property(
        fc.array(shape, { minLength: 1, maxLength: 6 }).chain((shapes) => {
          const one = fc.tuple(...shapes.map(filler))
          return fc.tuple(one, one).map(([a, b]) => ({ shapes, a, b }))
        }),
        ({ shapes, a, b }) => {
          const build = (values: string[][]): Op[] =>
            shapes.map((s, n) => {
              const tokens = s.slots.map((slot, i) =>
                slot.kind === 'word' ? slot.text : values[n]![i]!,
              )
              return { op: s.op, path: '/body/' + tokens.join('/') }
            })
          const first = diffSignature(ENDPOINT, build(a))!
          const second = diffSignature(ENDPOINT, build(b))!
          expect(second.id).toBe(first.id)
          expect(second).toEqual(first)
        },
      ),
      RUNS,
    )
  })

  test('different (op, path) sets give different ids', () => {
    const pair = fc.record({ op: opName, path: fc.array(word, { minLength: 1, maxLength: 3 }) })
    const set = fc
      .uniqueArray(pair, {
        minLength: 1,
        maxLength: 8,
        selector: ({ op, path }) => op + ' /' + path.join('/'),
      })
      .map((pairs) => pairs.map(({ op, path }) => ({ op, path: '/body/' + path.join('/') })))
    const key = (ops: Op[]) =>
      ops
        .map(({ op, path }) => op + ' ' + path)
        .sort()
        .join('\n')
    fc.assert(
      fc.property(set, set, (a, b) => {
        fc.pre(key(a) !== key(b))
        expect(diffSignature(ENDPOINT, a)!.id).not.toBe(diffSignature(ENDPOINT, b)!.id)
      }),
      { numRuns: 1000 },
    )
  })

  test('every id is 16 hex characters and only depends on the content', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), word, (method, template, key) => {
        const endpoint = { method, template }
        const signature: Signature = diffSignature(endpoint, [{ op: 'add', path: '/body/' + key }])!
        expect(signature.id).toMatch(/^[0-9a-f]{16}$/)
        const { id, ...content } = signature
        expect(signatureId(content)).toBe(id)
      }),
      RUNS,
    )
  })
})
