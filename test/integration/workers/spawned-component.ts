/**
 * `bun run src/main.ts <component>` as operators run it, for the workers
 * tests: its JSON log records as they come, waited for with a bound, and
 * its stderr. The process and its workers are the test's to stop: stop()
 * kills the primary and every worker it said it started.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { waitFor } from '../../support/upstreams.ts'

const MAIN = resolve(import.meta.dir, '../../../src/main.ts')

export type LogRecord = Record<string, unknown> & { readonly msg: string }

export interface SpawnedComponent {
  readonly process: Bun.Subprocess<'ignore', 'pipe', 'pipe'>
  readonly records: LogRecord[]
  /** The first record (from index `from`) that `match` accepts, waited for at most `timeoutMs`. */
  waitForRecord(what: string, match: (record: LogRecord) => boolean, timeoutMs?: number, from?: number): Promise<LogRecord>
  stderr(): Promise<string>
  /** SIGKILL to the primary if it still runs, and its working directory removed. */
  stop(): Promise<void>
}

export function spawnComponent(component: 'api' | 'proxy', env: Record<string, string>): SpawnedComponent {
  // An empty working directory, so that no developer's .env leaks in.
  const cwd = mkdtempSync(join(tmpdir(), `workers-${component}-`))
  const child = Bun.spawn(['bun', 'run', MAIN, component], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', SVC_APP_LOG_FORMAT: 'json', SVC_APP_LOG_LEVEL: 'info', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const records: LogRecord[] = []
  void (async () => {
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of child.stdout) {
      buffered += decoder.decode(chunk, { stream: true })
      const lines = buffered.split('\n')
      buffered = lines.pop()!
      for (const line of lines) if (line.startsWith('{')) records.push(JSON.parse(line) as LogRecord)
    }
  })()
  const stderr = new Response(child.stderr).text()
  return {
    process: child,
    records,
    waitForRecord: (what, match, timeoutMs = 20_000, from = 0) =>
      waitFor(() => records.slice(from).find(match), timeoutMs, what, 20),
    stderr: () => stderr,
    async stop() {
      child.kill('SIGKILL')
      for (const pid of workerPids(records).values()) {
        try {
          process.kill(pid, 'SIGKILL')
        } catch {
          // Already gone.
        }
      }
      await child.exited
      rmSync(cwd, { recursive: true, force: true })
    },
  }
}

/** The pids of the workers the primary said it started, the latest per index. */
export function workerPids(records: readonly LogRecord[]): Map<number, number> {
  const pids = new Map<number, number>()
  for (const record of records) if (record.msg === 'worker started') pids.set(record.worker as number, record.pid as number)
  return pids
}
