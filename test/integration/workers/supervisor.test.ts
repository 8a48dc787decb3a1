/**
 * The primary's supervisor with stand-in worker processes
 * (fixtures/scripted-worker.ts): what the proxy and API tests cannot cue.
 */
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { createLogger } from '../../../src/log/index.ts'
import { mergeSnapshots, renderSnapshot } from '../../../src/metrics/index.ts'
import { SERVER_RUNTIME_ENV } from '../../../src/workers/server-runtime.ts'
import { startSupervisor, type Supervisor } from '../../../src/workers/worker-supervisor.ts'

const FIXTURE = resolve(import.meta.dir, 'fixtures/scripted-worker.ts')
const TEST_TIMEOUT_MS = 60_000

function supervise(modes: readonly string[], lines: string[]): Supervisor {
  return startSupervisor({
    count: modes.length,
    command: (index) => [process.execPath, FIXTURE, modes[index]!],
    logger: createLogger({ level: 'info', format: 'json', write: (line) => void lines.push(line) }),
    drainBoundMs: 5000,
  })
}

/** The supervisor's log records with message `msg`, in order. */
function recordsOf(lines: readonly string[], msg: string): Record<string, unknown>[] {
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((r) => r.msg === msg)
}

function servedTotal(supervisor: Supervisor): Promise<string> {
  return supervisor.snapshots().then((snapshots) => renderSnapshot(mergeSnapshots(snapshots)))
}

describe('startSupervisor', () => {
  test('a worker that answers and then dies during a collection is counted once', async () => {
    const lines: string[] = []
    const supervisor = supervise(['answer-then-exit', 'slow'], lines)
    try {
      await supervisor.started
      // Worker 0 answers at once and exits; worker 1 answers 500 ms later,
      // by when worker 0's exit has put its snapshot among the gone ones.
      expect(await servedTotal(supervisor)).toContain('\nserved_total 10\n')
      expect(lines.some((line) => line.includes('"msg":"worker exited; restarting it"'))).toBe(true)
    } finally {
      await supervisor.stop()
    }
  }, TEST_TIMEOUT_MS)

  test("every worker starts with the server runtime's settings in its environment, an operator's own value kept", async () => {
    const lines: string[] = []
    const [name, value] = Object.entries(SERVER_RUNTIME_ENV)[0]!
    const own = process.env[name]
    delete process.env[name]
    const supervisor = supervise(['steady', 'steady'], lines)
    try {
      await supervisor.started
      const pids = recordsOf(lines, 'worker started').map((r) => r.pid as number)
      expect(pids).toHaveLength(2)
      for (const pid of pids) {
        const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
        for (const [n, v] of Object.entries(SERVER_RUNTIME_ENV)) expect(environ).toContain(`${n}=${v}`)
      }
    } finally {
      await supervisor.stop()
    }
    // Set by the operator: passed on as set.
    process.env[name] = '7'
    const kept: string[] = []
    const second = supervise(['steady'], kept)
    try {
      await second.started
      const pid = recordsOf(kept, 'worker started')[0]!.pid as number
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain(`${name}=7`)
      expect(value).toBe('0')
    } finally {
      await second.stop()
      if (own === undefined) delete process.env[name]
      else process.env[name] = own
    }
  }, TEST_TIMEOUT_MS)

  test('a stop while a worker is still loading (killed by the SIGTERM itself) is a clean stop', async () => {
    const supervisor = supervise(['steady', 'loading'], [])
    supervisor.started.catch(() => {})
    await Bun.sleep(300)
    expect(await supervisor.stop()).toBe(true)
  }, TEST_TIMEOUT_MS)

  test('a worker that exits before it serves fails the startup, logged', async () => {
    const lines: string[] = []
    const supervisor = supervise(['steady', 'fail'], lines)
    try {
      await expect(supervisor.started).rejects.toThrow('worker 1 exited before it served (exit code 3)')
      const record = recordsOf(lines, 'worker failed to start')[0]
      expect(record).toMatchObject({ level: 'ERROR', worker: 1, exit_code: 3 })
    } finally {
      await supervisor.stop()
    }
  }, TEST_TIMEOUT_MS)
})
