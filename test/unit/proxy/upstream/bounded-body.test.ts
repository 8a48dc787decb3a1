import { describe, expect, test } from 'bun:test'
import {
  concatChunks,
  contentLength,
  passThrough,
  readRequestBody,
  readResponseBody,
  type CopyControl,
  type StreamEnd,
} from '../../../../src/proxy/upstream/bounded-body.ts'

const bytes = (text: string) => new TextEncoder().encode(text)

function streamOf(chunks: string[], options: { failAfter?: boolean } = {}): ReadableStream<Uint8Array> {
  let i = 0
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) return controller.enqueue(bytes(chunks[i++]!))
      if (options.failAfter) return controller.error(new Error('reset'))
      controller.close()
    },
  })
}

async function textOf(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text()
}

describe('bounds', () => {
  test('Content-Length is read only when it is a plain number', () => {
    expect(contentLength(new Headers({ 'content-length': '42' }))).toBe(42)
    expect(contentLength(new Headers({ 'content-length': '-1' }))).toBeUndefined()
    expect(contentLength(new Headers())).toBeUndefined()
  })

  test('concatChunks joins in order', () => {
    expect(new TextDecoder().decode(concatChunks([bytes('ab'), bytes('c')], 3))).toBe('abc')
  })
})

describe('readRequestBody', () => {
  test('reads a body within the bound whole', async () => {
    const read = await readRequestBody(streamOf(['ab', 'cd']), 4)
    expect(read.kind).toBe('complete')
    if (read.kind === 'complete') expect(new TextDecoder().decode(read.bytes)).toBe('abcd')
  })

  test('past the bound, hands back a stream that replays what was read, then the rest', async () => {
    const read = await readRequestBody(streamOf(['ab', 'cd', 'ef', 'gh']), 3)
    expect(read.kind).toBe('too-large')
    if (read.kind === 'too-large') expect(await textOf(read.stream)).toBe('abcdefgh')
  })

  test('asks the budget for each chunk; once refused, live still gets every byte from the replay', async () => {
    const asked: number[] = []
    const reserve = (n: number) => (asked.push(n), asked.length < 3)
    const read = await readRequestBody(streamOf(['ab', 'cd', 'ef', 'gh']), 0, reserve)
    expect(read.kind).toBe('over-budget')
    expect(asked).toEqual([2, 2, 2])
    if (read.kind === 'over-budget') expect(await textOf(read.stream)).toBe('abcdefgh')
  })
})

describe('readResponseBody', () => {
  test('refuses an announced length above the bound without reading it', async () => {
    const response = new Response('x'.repeat(100), { headers: { 'content-length': '100' } })
    expect(await readResponseBody(response, 10)).toEqual({ kind: 'too-large' })
  })

  test('stops reading an unannounced body past the bound', async () => {
    expect(await readResponseBody(new Response(streamOf(['aaaa', 'bbbb', 'cccc'])), 6)).toEqual({ kind: 'too-large' })
  })

  test('reads an unannounced body within the bound', async () => {
    const read = await readResponseBody(new Response(streamOf(['aa', 'bb'])), 0)
    expect(read.kind === 'complete' && new TextDecoder().decode(read.bytes)).toBe('aabb')
  })

  test('asks the budget for an announced length at once, and stops when it says no', async () => {
    const asked: number[] = []
    const response = new Response('x'.repeat(100), { headers: { 'content-length': '100' } })
    expect(await readResponseBody(response, 0, (n) => (asked.push(n), false))).toEqual({ kind: 'over-budget' })
    expect(asked).toEqual([100])
  })

  test('asks the budget chunk by chunk for an unannounced body, and stops when it says no', async () => {
    const asked: number[] = []
    const read = await readResponseBody(new Response(streamOf(['aaaa', 'bbbb', 'cccc'])), 0, (n) => (asked.push(n), asked.length < 2))
    expect(read).toEqual({ kind: 'over-budget' })
    expect(asked).toEqual([4, 4])
  })

  test('rejects when the body breaks', async () => {
    expect(readResponseBody(new Response(streamOf(['aa'], { failAfter: true })), 0)).rejects.toThrow('reset')
  })
})

describe('passThrough', () => {
  async function run(chunks: string[], maxBytes: number, options: { failAfter?: boolean } = {}) {
    let end: StreamEnd | undefined
    let calls = 0
    const out = passThrough(streamOf(chunks, options), maxBytes, (e) => {
      end = e
      calls++
    })
    let text = ''
    let error: unknown
    try {
      text = await textOf(out)
    } catch (e) {
      error = e
    }
    return { text, end, calls, error }
  }

  test('forwards every byte and keeps a copy within the bound', async () => {
    const { text, end, calls } = await run(['ab', 'cd'], 10)
    expect(text).toBe('abcd')
    expect(calls).toBe(1)
    expect(end?.kind === 'complete' && new TextDecoder().decode(end.bytes)).toBe('abcd')
  })

  test('past the bound the copy is dropped, the forwarding goes on', async () => {
    const { text, end } = await run(['abc', 'def', 'ghi'], 5)
    expect(text).toBe('abcdefghi')
    expect(end).toEqual({ kind: 'too-large' })
  })

  test('-1 keeps no copy at all', async () => {
    const { text, end } = await run(['abc'], -1)
    expect(text).toBe('abc')
    expect(end?.kind === 'complete' && end.bytes.byteLength).toBe(0)
  })

  test('a copy given up midway keeps nothing more; the forwarding goes on', async () => {
    let end: StreamEnd | undefined
    const copy: CopyControl = { dropped: false }
    let pulls = 0
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++
        if (pulls === 2) copy.drop?.() // the comparison was abandoned after the first chunk
        if (pulls <= 3) controller.enqueue(bytes(`chunk${pulls}`))
        else controller.close()
      },
    })
    const text = await textOf(passThrough(source, 0, (e) => (end = e), copy))
    expect(text).toBe('chunk1chunk2chunk3')
    expect(end).toEqual({ kind: 'too-large' })
  })

  test('a copy whose bytes the budget refuses is dropped; the forwarding goes on', async () => {
    let end: StreamEnd | undefined
    const asked: number[] = []
    const copy: CopyControl = { dropped: false, reserve: (n) => (asked.push(n), asked.length < 2) }
    const text = await textOf(passThrough(streamOf(['abc', 'def', 'ghi']), 0, (e) => (end = e), copy))
    expect(text).toBe('abcdefghi')
    expect(end).toEqual({ kind: 'too-large' })
    // Asked until it said no, then never again.
    expect(asked).toEqual([3, 3])
  })

  test('a copy given up before the body starts is never kept', async () => {
    let end: StreamEnd | undefined
    const text = await textOf(passThrough(streamOf(['ab', 'cd']), 0, (e) => (end = e), { dropped: true }))
    expect(text).toBe('abcd')
    expect(end).toEqual({ kind: 'too-large' })
  })

  test('an upstream failure ends the stream in error and is reported once', async () => {
    const { end, calls, error } = await run(['abc'], 0, { failAfter: true })
    expect(error).toBeDefined()
    expect(calls).toBe(1)
    expect(end?.kind).toBe('failed')
  })

  test('a consumer that cancels is reported as cancelled', async () => {
    let end: StreamEnd | undefined
    // A source that sends one chunk, then nothing until cancelled (a live stream).
    let sent = false
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return new Promise<void>(() => {})
        sent = true
        controller.enqueue(bytes('a'))
      },
    })
    const out = passThrough(source, 0, (e) => {
      end = e
    })
    const reader = out.getReader()
    await reader.read()
    await reader.cancel()
    expect(end).toEqual({ kind: 'cancelled' })
  })
})
