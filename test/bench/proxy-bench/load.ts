/** Load generators of the proxy benchmark: wrk when installed, else bounded in-process ones. */
import { spawn, spawnSync } from 'bun'

export interface LoadResult {
  readonly requests: number
  readonly rps: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly errors: number
  readonly tool: 'wrk' | 'in-process'
}

export const hasWrk = spawnSync(['sh', '-c', 'command -v wrk']).exitCode === 0

export async function load(url: string, seconds: number, connections: number): Promise<LoadResult> {
  return hasWrk ? wrk(url, seconds, connections) : inProcessLoad(url, seconds, connections)
}

async function wrk(url: string, seconds: number, connections: number): Promise<LoadResult> {
  const child = spawn(['wrk', '-t2', `-c${connections}`, `-d${seconds}s`, '--latency', url], { stdout: 'pipe', stderr: 'pipe' })
  const text = await new Response(child.stdout).text()
  await child.exited
  const duration = (pattern: RegExp) => {
    const m = pattern.exec(text)
    if (!m) return NaN
    const value = Number(m[1])
    return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value
  }
  const requests = Number(/(\d+) requests in/.exec(text)?.[1] ?? NaN)
  const errorsMatch = /Non-2xx or 3xx responses: (\d+)/.exec(text)
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text)
  const errors =
    Number(errorsMatch?.[1] ?? 0) + (socketErrors ? socketErrors.slice(1).reduce((a, b) => a + Number(b), 0) : 0)
  return {
    requests,
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1] ?? NaN),
    p50Ms: duration(/\s50%\s+([\d.]+)(us|ms|s)/),
    p99Ms: duration(/\s99%\s+([\d.]+)(us|ms|s)/),
    errors,
    tool: 'wrk',
  }
}

/** A closed-loop generator: `connections` workers, each sending the next request when the last is done. */
async function inProcessLoad(url: string, seconds: number, connections: number): Promise<LoadResult> {
  const latencies: number[] = []
  let errors = 0
  const end = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t = performance.now()
        try {
          const response = await fetch(url)
          await response.arrayBuffer()
          if (response.status >= 400) errors++
        } catch {
          errors++
        }
        latencies.push(performance.now() - t)
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? NaN,
    p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? NaN,
    errors,
    tool: 'in-process',
  }
}

/**
 * An open-loop generator at a fixed rate (for the accounting check): a
 * request is started every 1/rate s, at most `connections` in flight (a
 * request that finds them all busy is not sent, and counted as dropped).
 */
export async function fixedRate(url: string, rate: number, seconds: number, connections: number) {
  let sent = 0
  let dropped = 0
  let failed = 0
  let inFlight = 0
  const tickMs = 5
  const perTick = rate * (tickMs / 1000)
  let credit = 0
  const end = performance.now() + seconds * 1000
  const pending = new Set<Promise<void>>()
  while (performance.now() < end) {
    credit += perTick
    while (credit >= 1) {
      credit--
      if (inFlight >= connections) {
        dropped++
        continue
      }
      inFlight++
      sent++
      const p: Promise<void> = fetch(url)
        .then((r) => r.arrayBuffer())
        .then(
          () => {},
          () => void failed++,
        )
        .finally(() => {
          inFlight--
          pending.delete(p)
        })
      pending.add(p)
    }
    await Bun.sleep(tickMs)
  }
  await Promise.all(pending)
  return { sent, dropped, failed }
}
