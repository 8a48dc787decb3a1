import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { ndjsonLines } from '../../../src/cli/ndjson-lines.ts'

function streamOf(chunks: Uint8Array[], fail?: Error): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      const next = chunks.shift()
      if (next) controller.enqueue(next)
      else if (fail) controller.error(fail)
      else controller.close()
    },
  })
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const lines: string[] = []
  for await (const line of ndjsonLines(stream)) lines.push(line)
  return lines
}

describe('ndjsonLines', () => {
  test('yields the lines however the bytes are cut, multi-byte characters included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'grapheme', minLength: 1 }).filter((s) => !s.includes('\n')), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 6 }), async (lines, cuts) => {
        const bytes = new TextEncoder().encode(lines.map((l) => `${l}\n`).join(''))
        const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b)
        const chunks: Uint8Array[] = []
        let start = 0
        for (const point of [...points, bytes.length]) {
          if (point > start) chunks.push(bytes.slice(start, point))
          start = Math.max(start, point)
        }
        expect(await collect(streamOf(chunks))).toEqual(lines)
      }),
    )
  })

  test('a last line without its newline counts; blank lines do not', async () => {
    expect(await collect(streamOf([new TextEncoder().encode('a\n\nb')]))).toEqual(['a', 'b'])
  })

  test('a stream that breaks off rejects', async () => {
    expect(collect(streamOf([new TextEncoder().encode('a\nb')], new Error('connection reset')))).rejects.toThrow('connection reset')
  })
})
