/**
 * CPU of the PostgreSQL backends serving the benchmark's database over a
 * run: each backend's CPU (`/proc/<pid>/stat`) at the end, less its CPU
 * at the start.
 *
 * A backend that is not in the first sample counts from 0 only if it
 * started after that sample. The benchmark's own pool has connections of
 * its own beside the API's, and each sample leaves out the connection it
 * runs on: one that was the asking connection at the start (so not
 * sampled) and a listed one at the end, counted from 0, brought its whole
 * life's CPU (the seeding of a million captures) into a 5-second run,
 * which then read 10.7 cores of PostgreSQL on a 2-core machine.
 */
import type { Sql } from 'postgres'
import { cpuSeconds } from './api-process.ts'

export interface BackendsSample {
  /** When the sampling statement started, by PostgreSQL's clock (epoch ms): before its view of the backends. */
  readonly at: number
  /** Per backend pid: its CPU seconds so far (NaN when unreadable) and when it started (epoch ms). */
  readonly backends: ReadonlyMap<number, { readonly cpu: number; readonly started: number }>
}

export async function sampleBackends(sql: Sql): Promise<BackendsSample> {
  const [row] = await sql<{ at: number; backends: { pid: number; started: number }[] }[]>`
    SELECT extract(epoch FROM statement_timestamp()) * 1000 AS at,
      (SELECT coalesce(json_agg(json_build_object('pid', pid, 'started', extract(epoch FROM backend_start) * 1000)), '[]'::json)
         FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) AS backends`
  return {
    at: Number(row!.at),
    backends: new Map(row!.backends.map((b) => [b.pid, { cpu: cpuSeconds(b.pid), started: Number(b.started) }])),
  }
}

/** CPU seconds the backends used between two samples (see above for a backend in the second only). */
export function backendCpuBetween(before: BackendsSample, after: BackendsSample): number {
  let seconds = 0
  for (const [pid, { cpu, started }] of after.backends) {
    if (!Number.isFinite(cpu)) continue
    const earlier = before.backends.get(pid)
    if (earlier !== undefined) {
      if (Number.isFinite(earlier.cpu)) seconds += cpu - earlier.cpu
    } else if (started >= before.at) {
      seconds += cpu
    }
  }
  return seconds
}
