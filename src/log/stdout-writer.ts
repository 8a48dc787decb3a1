import { writeSync } from 'node:fs'

/**
 * Writes a line and its newline to stdout with a blocking `write(2)`.
 *
 * Synchronous on purpose: `process.stdout.write` buffers in Bun, and a
 * `process.exit()` right after loses what is buffered (measured: 64 KB of
 * 20 MB arrived), so the last lines before a startup failure would vanish.
 * The cost is that a stalled reader of stdout stalls the process, as with
 * Go's slog. A failed write (closed pipe) loses the line: a logger must not
 * throw.
 */
export function writeStdout(line: string): void {
  const text = `${line}\n`
  try {
    let written = writeSync(1, text)
    // ASCII lines are written whole in the common case; otherwise compare bytes.
    if (written === text.length) return
    const bytes = Buffer.from(text)
    while (written < bytes.length) written += writeSync(1, bytes, written)
  } catch {
    // EPIPE, EBADF, EAGAIN on a non-blocking pipe: nothing sensible to do.
  }
}
