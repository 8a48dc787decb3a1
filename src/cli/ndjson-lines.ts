const NEWLINE = 0x0a

/**
 * The lines of an NDJSON stream (one JSON text per line, `\n`-terminated),
 * as text, without their newline; a last line without one is yielded too,
 * blank lines are not. Reads as the consumer asks, so at most one line
 * and one chunk are held. A stream that breaks off rejects the iteration:
 * a truncated export is an error, never a short success.
 */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  const reader = body.getReader()
  let pending: Uint8Array[] = []
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      let start = 0
      for (let index = value.indexOf(NEWLINE); index !== -1; index = value.indexOf(NEWLINE, start)) {
        const line = join(pending, value.subarray(start, index))
        pending = []
        start = index + 1
        if (line.byteLength > 0) yield decoder.decode(line)
      }
      if (start < value.byteLength) pending.push(value.slice(start))
    }
    const rest = join(pending, new Uint8Array(0))
    if (rest.byteLength > 0) yield decoder.decode(rest)
  } finally {
    reader.releaseLock()
  }
}

function join(parts: Uint8Array[], last: Uint8Array): Uint8Array {
  if (parts.length === 0) return last
  const out = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, last.byteLength))
  let offset = 0
  for (const part of [...parts, last]) {
    out.set(part, offset)
    offset += part.byteLength
  }
  return out
}
