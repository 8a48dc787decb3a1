/**
 * The open loop of the proxy benchmark: GET requests at a fixed rate from
 * `api-bench/load-generator.ts` in a process of its own (raw keep-alive
 * sockets, pre-serialised requests), latency counted from when each
 * request was due, so that queueing shows (no coordinated omission; wrk2
 * is not packaged in Debian).
 */
import { spawn } from 'bun'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { LoadPlan, LoadReport } from '../api-bench/load-generator.ts'

export type { LoadReport } from '../api-bench/load-generator.ts'

const GENERATOR = resolve(import.meta.dir, '../api-bench/load-generator.ts')

/** `rate` GET requests per second to `url` for `seconds`, over `connections` keep-alive connections. */
export async function openLoop(url: string, rate: number, seconds: number, connections: number): Promise<LoadReport> {
  const { hostname, port, pathname, search } = new URL(url)
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
  }
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bench-open-loop-'))
  try {
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan))
    const child = spawn(['bun', 'run', GENERATOR, join(dir, 'plan.json')], { stdout: 'pipe', stderr: 'inherit' })
    const text = await new Response(child.stdout).text()
    await child.exited
    return JSON.parse(text.trim().split('\n').pop()!) as LoadReport
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
