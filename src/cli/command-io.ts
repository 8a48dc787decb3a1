/** Where a command writes, and its clock: the process's in production, a test's own in tests. */
export interface CommandIo {
  out(text: string): void
  err(text: string): void
  now(): Date
  /** Whether standard output is a terminal (a progress bar) or not (plain lines). */
  readonly isTerminal: boolean
}

export const processIo: CommandIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  now: () => new Date(),
  isTerminal: process.stdout.isTTY === true,
}

/** An error as the one line a command prints before it exits 2. */
export function errorLine(command: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return `${command}: ${message.split('\n')[0]}\n`
}
