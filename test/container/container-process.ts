import type { Subprocess } from 'bun'
import { dirname } from 'node:path'
import { IMAGE_BUN, type ReplayedImage } from './replay-dockerfile.ts'

/**
 * Runs a replayed image's ENTRYPOINT + CMD, and its HEALTHCHECK, as Docker
 * would: exec form, in the image's WORKDIR, with the image's ENV plus the
 * `docker run -e` values, and nothing else from this machine's environment
 * (no stray SVC_APP_* leaks in). Only the image's Bun is mapped to this
 * machine's Bun; any other program is refused, as distroless has none.
 */
export interface RunningContainer {
  readonly proc: Subprocess<'ignore', 'pipe', 'pipe'>
  /** Everything written to stdout and stderr so far. */
  output(): string
  /** Sends the image's STOPSIGNAL and waits for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<ContainerExit>
  /** Waits for the process to end on its own. */
  exited(timeoutMs: number): Promise<ContainerExit>
}

export interface ContainerExit {
  readonly code: number | null
  readonly signal: string | null
  /** True when the grace period ran out and the process was killed. */
  readonly killed: boolean
}

/** The environment a container process gets. */
export function containerEnv(
  image: ReplayedImage,
  home: string,
  env: Readonly<Record<string, string>>,
): Record<string, string> {
  return {
    // Distroless's PATH, with this machine's Bun standing in for /usr/local/bin/bun.
    PATH: `${dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
    HOME: home,
    // Set by the official Bun images.
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0',
    ...image.config.env,
    ...env,
  }
}

function mapArgv(argv: readonly string[]): string[] {
  if (argv[0] !== IMAGE_BUN)
    throw new Error(`${argv[0]} does not exist in a distroless image; only ${IMAGE_BUN} does`)
  return [process.execPath, ...argv.slice(1)]
}

export function startContainer(
  image: ReplayedImage,
  home: string,
  env: Readonly<Record<string, string>>,
): RunningContainer {
  const argv = [...(image.config.entrypoint ?? []), ...(image.config.cmd ?? [])]
  const proc = Bun.spawn(mapArgv(argv), {
    cwd: image.cwd,
    env: containerEnv(image, home, env),
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const chunks: string[] = []
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) chunks.push(decoder.decode(chunk, { stream: true }))
  }
  const drained = Promise.all([drain(proc.stdout), drain(proc.stderr)])
  const wait = async (timeoutMs: number, onTimeout: () => void): Promise<ContainerExit> => {
    let killed = false
    const timer = setTimeout(() => {
      killed = true
      onTimeout()
    }, timeoutMs)
    await proc.exited
    clearTimeout(timer)
    await drained
    return {
      code: proc.exitCode,
      signal: proc.signalCode === null ? null : String(proc.signalCode),
      killed,
    }
  }
  return {
    proc,
    output: () => chunks.join(''),
    stop(graceMs = 15_000) {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill((image.config.stopSignal ?? 'SIGTERM') as NodeJS.Signals)
      }
      return wait(graceMs, () => proc.kill('SIGKILL'))
    },
    exited(timeoutMs) {
      return wait(timeoutMs, () => proc.kill('SIGKILL'))
    },
  }
}

/** Runs the HEALTHCHECK command once; returns its exit code (killed at its --timeout). */
export async function runHealthcheck(
  image: ReplayedImage,
  home: string,
  env: Readonly<Record<string, string>>,
): Promise<number> {
  const check = image.config.healthcheck
  if (!check?.exec) throw new Error(`${image.target} has no exec-form HEALTHCHECK`)
  const proc = Bun.spawn(mapArgv(check.exec), {
    cwd: image.cwd,
    env: containerEnv(image, home, env),
    stdout: 'ignore',
    stderr: 'ignore',
  })
  const timeoutMs = durationMs(check.flags['timeout'] ?? '30s')
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const code = await proc.exited
  clearTimeout(timer)
  return code
}

/** Polls the HEALTHCHECK until it passes or `withinMs` runs out; returns the last exit code. */
export async function waitHealthy(
  image: ReplayedImage,
  home: string,
  env: Readonly<Record<string, string>>,
  withinMs: number,
): Promise<number> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const code = await runHealthcheck(image, home, env)
    if (code === 0 || Date.now() > deadline) return code
    await Bun.sleep(150)
  }
}

/** Docker's HEALTHCHECK durations as used here: `3s`, `500ms`, `1m`. */
export function durationMs(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(text)
  if (!m) throw new Error(`unsupported duration ${text}`)
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h']
  return Number(m[1]) * unit
}
