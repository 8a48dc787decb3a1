/**
 * The open loop of the proxy benchmark: GET requests at a fixed rate from
 * `api-bench/load-generator.ts` in a process of its own (raw keep-alive
 * sockets, pre-serialised requests), latency counted from when each
 * request was due, so that queueing shows (no coordinated omission; wrk2
 * is not packaged in Debian).
 */
import { spawn } from 'bun'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { LoadPlan, LoadReport } from '../api-bench/load-generator.ts'

export type { LoadReport } from '../api-bench/load-generator.ts'

/** One answered request of an open loop: when it was due (ms from the start) and how long it took from then. */
export interface TimedRequest {
  readonly dueMs: number
  readonly latencyMs: number
}

const GENERATOR = resolve(import.meta.dir, '../api-bench/load-generator.ts')

/** `rate` GET requests per second to `url` for `seconds`, over `connections` keep-alive connections. */
export async function openLoop(url: string, rate: number, seconds: number, connections: number): Promise<LoadReport> {
  return (await runOpenLoop(url, rate, seconds, connections, false)).report
}

/** `openLoop`, with every answered request: when it was due and how long it took. */
export async function timedOpenLoop(
  url: string,
  rate: number,
  seconds: number,
  connections: number,
): Promise<LoadReport & { readonly requests: TimedRequest[] }> {
  const { report, requests } = await runOpenLoop(url, rate, seconds, connections, true)
  return { ...report, requests: requests! }
}

async function runOpenLoop(
  url: string,
  rate: number,
  seconds: number,
  connections: number,
  timed: boolean,
): Promise<{ report: LoadReport; requests: TimedRequest[] | undefined }> {
  const { hostname, port, pathname, search } = new URL(url)
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-open-loop-'))
  const plan: LoadPlan = {
    mode: 'rate',
    method: 'GET',
    host: hostname,
    port: Number(port),
    path: pathname + search,
    headers: {},
    bodies: [''],
    seconds,
    connections,
    rate,
    latenciesFile: timed ? join(dir, 'latencies.txt') : undefined,
  }
  try {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan))
    const child = spawn(['bun', 'run', GENERATOR, join(dir, 'plan.json')], { stdout: 'pipe', stderr: 'inherit' })
    const text = await new Response(child.stdout).text()
    await child.exited
    const report = JSON.parse(text.trim().split('\n').pop()!) as LoadReport
    return { report, requests: timed ? timedRequests(readFileSync(plan.latenciesFile!, 'utf8')) : undefined }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** The generator's `<due> <latency>` lines, in order of when they were due. */
export function timedRequests(text: string): TimedRequest[] {
  const requests: TimedRequest[] = []
  for (const line of text.split('\n')) {
    const [due, latency] = line.split(' ')
    if (latency !== undefined) requests.push({ dueMs: Number(due), latencyMs: Number(latency) })
  }
  return requests.sort((a, b) => a.dueMs - b.dueMs)
}
