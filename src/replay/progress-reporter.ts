import type { CommandIo } from '../cli/command-io.ts'
import { progressBar, progressLine, type ProgressSnapshot } from './progress-line.ts'

/** How often the terminal's bar is redrawn, in ms: smooth enough, cheap enough. */
const REDRAW_MS = 100

/** ANSI: erase from the cursor to the end of the line (ECMA-48 EL). */
const ERASE_LINE_END = '\x1b[K'

/**
 * Shows a replay's progress while it runs (docs/ci.md "Replay"): on a
 * terminal a bar redrawn in place, otherwise a plain line every
 * `intervalMs`, so that a CI log gets a few readable lines rather than
 * thousands of carriage returns.
 */
export function startProgress(io: CommandIo, intervalMs: number, snapshot: () => ProgressSnapshot): { stop(): void } {
  const draw = () => (io.isTerminal ? io.out(`\r${progressBar(snapshot())}${ERASE_LINE_END}`) : io.out(`${progressLine(snapshot())}\n`))
  const timer = setInterval(draw, io.isTerminal ? REDRAW_MS : intervalMs)
  return {
    stop() {
      clearInterval(timer)
      draw()
      if (io.isTerminal) io.out('\n')
    },
  }
}
