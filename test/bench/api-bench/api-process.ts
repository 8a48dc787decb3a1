/**
 * The API under test as a process of its own (`bun run src/main.ts api`),
 * configured through its environment, its log written to a file, stopped
 * by its PID. Also the migrator (`bun run src/main.ts migrate`) and what
 * /proc says about a process: peak RSS, CPU time.
 */
import { spawn, type Subprocess } from 'bun'
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { freePort } from '../../support/ports.ts'

export const REPO = resolve(import.meta.dir, '../../..')

/** A minimal environment for the children: no variable of the bench's own leaks in. */
function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' }
}

/**
 * `bun run src/main.ts migrate` against `databaseUrl`; throws with its
 * output on failure. `repo`: another checkout's (ingest-compare.ts).
 */
export async function runMigrator(databaseUrl: string, repo: string = REPO): Promise<void> {
  const child = spawn(['bun', 'run', resolve(repo, 'src/main.ts'), 'migrate'], {
    cwd: repo,
    env: { ...baseEnv(), SVC_APP_DATABASE_URL: databaseUrl, SVC_APP_APP_ENV: 'production' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()])
  if ((await child.exited) !== 0) throw new Error(`migrate exited with ${child.exitCode}: ${err || out}`)
}

export interface ApiProcess {
  readonly child: Subprocess
  readonly pid: number
  readonly url: string
  readonly port: number
  readonly logFile: string
}

/**
 * Starts the API with `env` on `port` and waits until /health/ready answers
 * 200. With `cpuProfileDir`, Bun's sampling profiler runs and writes a
 * profile (Chrome format and Markdown) there when the API exits. `repo`:
 * the checkout to run (another one for ingest-compare.ts).
 */
export async function startApiProcess(
  env: Record<string, string>,
  port: number,
  logFile: string,
  cpuProfileDir?: string,
  repo: string = REPO,
): Promise<ApiProcess> {
  const log = openSync(logFile, 'a')
  const profile = cpuProfileDir ? ['--cpu-prof', '--cpu-prof-md', `--cpu-prof-dir=${cpuProfileDir}`] : []
  const child = spawn(['bun', ...profile, 'run', resolve(repo, 'src/main.ts'), 'api'], {
    cwd: repo,
    env: { ...baseEnv(), ...env, SVC_APP_PORT: String(port) },
    stdout: log,
    stderr: log,
  })
  closeSync(log)
  const url = `http://127.0.0.1:${port}`
  const deadline = performance.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the API exited with ${child.exitCode}; see ${logFile}`)
    try {
      const response = await fetch(`${url}/health/ready`)
      await response.arrayBuffer()
      if (response.status === 200) break
    } catch {
      // not listening yet
    }
    if (performance.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`the API was not ready within 30 s; see ${logFile}`)
    }
    await Bun.sleep(100)
  }
  return { child, pid: child.pid, url, port, logFile }
}

/** SIGTERM (graceful shutdown), SIGKILL after 15 s. */
export async function stopApiProcess(api: ApiProcess | undefined): Promise<void> {
  if (!api || api.child.exitCode !== null) return
  api.child.kill('SIGTERM')
  const timer = setTimeout(() => api.child.kill('SIGKILL'), 15_000)
  await api.child.exited
  clearTimeout(timer)
}

/** VmHWM (peak resident set) and VmRSS of a process, in MB. */
export function memoryMb(pid: number): { peak: number; current: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN)
    return { peak: kb('VmHWM') / 1024, current: kb('VmRSS') / 1024 }
  } catch {
    return { peak: NaN, current: NaN }
  }
}

/**
 * User + system CPU time of a process so far (all its threads), in seconds;
 * with `tid`, of that one thread (the process's main thread is tid = pid,
 * which is where all JavaScript runs).
 */
export function cpuSeconds(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8')
    // Fields after the command name (which may contain spaces) start at ") ".
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN
  }
}

// Below the kernel's ephemeral range, so a port handed out is never given to a listener on port 0 meanwhile.
export { freePort }

/**
 * User + system CPU time of a process and its descendants so far, in
 * seconds (with `mainThreads`, of their main threads alone, where their
 * JavaScript runs): the API with SVC_APP_WORKERS above 1 is a primary and
 * its worker processes (each listed in /proc/<pid>/task/<tid>/children).
 */
export function treeCpuSeconds(pid: number, mainThreads = false): number {
  let total = mainThreads ? cpuSeconds(pid, pid) : cpuSeconds(pid)
  for (const child of childPids(pid)) total += treeCpuSeconds(child, mainThreads)
  return total
}

/**
 * memoryMb summed over a process and its descendants: with workers, the
 * peak is the sum of each process's own peak, an upper bound of what they
 * held at once.
 */
export function treeMemoryMb(pid: number): { peak: number; current: number } {
  const own = memoryMb(pid)
  for (const child of childPids(pid)) {
    const sub = treeMemoryMb(child)
    own.peak += sub.peak
    own.current += sub.current
  }
  return own
}

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter((p) => p !== '').map(Number),
    )
  } catch {
    return []
  }
}
