/** The API benchmark's result: its shape, the target checks, and the printed tables. */
import type { LoadReport } from './ingest-load.ts'
import { describeMachine } from './machine.ts'
import type { ReadResult } from './read-latency.ts'
import type { SeedResult } from './seed.ts'
import { int, ms, textTable } from './text-table.ts'

/** The ingest targets. */
export const TARGET_RATE = 2000
export const TARGET_P99_MS = 50

export interface ApiBenchTarget {
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

export interface IngestRun extends LoadReport {
  readonly label: string
  readonly tool: string
  /** 201 answers per second. */
  readonly capturesPerSecond: number
  /** CPU used by the API process while the run lasted, in cores (1 = one core busy). */
  readonly apiCores: number
  /** Of which its main thread, where all JavaScript runs: near 1, the event loop is the limit. */
  readonly apiMainThreadCores: number
  /** CPU used meanwhile by the PostgreSQL backends serving the bench database, in cores. */
  readonly postgresCores: number
  /** Share of the whole machine's CPU that was busy meanwhile. */
  readonly machineBusy: number
}

export interface ApiBenchResult {
  readonly seed: SeedResult
  readonly ingest: IngestRun[]
  readonly reads: ReadResult[]
  readonly peakRssMb: { afterIngest: number; end: number }
  readonly targets: ApiBenchTarget[]
}

export function targets(ingest: IngestRun[], reads: ReadResult[], rate: number): ApiBenchTarget[] {
  const [closed, open] = ingest
  const out: ApiBenchTarget[] = [
    {
      target: `ingest sustained >= ${int(TARGET_RATE)} captures/s`,
      measured: `${int(closed!.capturesPerSecond)}/s (${closed!.tool}, ${errorsText(closed!)})`,
      met: closed!.capturesPerSecond >= TARGET_RATE && errorCount(closed!) === 0,
    },
  ]
  const delivered = open!.capturesPerSecond
  out.push({
    target: `ingest p99 < ${TARGET_P99_MS} ms at ${int(rate)}/s offered`,
    measured: `p99 ${ms(open!.p99Ms)}, p50 ${ms(open!.p50Ms)}, ${int(delivered)}/s delivered, ${errorsText(open!)}`,
    met: rate >= TARGET_RATE && open!.p99Ms < TARGET_P99_MS && delivered >= rate * 0.99 && errorCount(open!) === 0,
  })
  for (const read of reads) {
    if (read.targetMs === undefined) continue
    out.push({ target: `${read.name}: p50 < ${read.targetMs} ms`, measured: ms(read.p50Ms), met: read.p50Ms < read.targetMs })
    if (read.targetP95Ms !== undefined) {
      out.push({ target: `${read.name}: p95 < ${read.targetP95Ms} ms`, measured: ms(read.p95Ms), met: read.p95Ms < read.targetP95Ms })
    }
  }
  return out
}

/** Cores, and CPU ms per stored capture. */
function perCapture(cores: number, run: IngestRun): string {
  const msEach = run.capturesPerSecond > 0 ? (cores * 1000) / run.capturesPerSecond : NaN
  return `${cores.toFixed(2)} (${Number.isFinite(msEach) ? msEach.toFixed(2) : '-'} ms)`
}

function errorCount(run: LoadReport): number {
  const non201 = Object.entries(run.statuses).reduce((sum, [status, n]) => sum + (status === '201' ? 0 : n), 0)
  return non201 + run.socketErrors + run.dropped
}

export function errorsText(run: LoadReport): string {
  const n = errorCount(run)
  if (n === 0) return 'no errors'
  const statuses = Object.entries(run.statuses).filter(([s]) => s !== '201').map(([s, c]) => `${c}x ${s}`)
  return [...statuses, run.socketErrors ? `${run.socketErrors} socket errors` : '', run.dropped ? `${run.dropped} dropped` : '']
    .filter((s) => s !== '')
    .join(', ')
}

export function printResult(result: ApiBenchResult, print: (line: string) => void, info: { rows: number }): void {
  print('')
  print('Ingest (createRequest, 2 KB JSON bodies, diff computed by the API):')
  for (const line of textTable(
    [
      ['run', 'tool', 'captures/s', 'p50', 'p90', 'p99', 'max', 'errors', 'API cores (ms/capture)', 'API JS thread', 'PG cores (ms/capture)', 'machine busy'],
      ...result.ingest.map((r) => [
        r.label,
        r.tool,
        int(r.capturesPerSecond),
        ms(r.p50Ms),
        ms(r.p90Ms),
        ms(r.p99Ms),
        ms(r.maxMs),
        int(errorCount(r)),
        perCapture(r.apiCores, r),
        r.apiMainThreadCores.toFixed(2),
        perCapture(r.postgresCores, r),
        `${(r.machineBusy * 100).toFixed(0)}%`,
      ]),
    ],
    new Set([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
  )) print(`  ${line}`)
  const closed = result.ingest[0]!
  const apiMs = (closed.apiCores * 1000) / closed.capturesPerSecond
  const pgMs = (closed.postgresCores * 1000) / closed.capturesPerSecond
  const cores = describeMachine().cpus
  print(`  CPU per stored capture (closed loop): API ${apiMs.toFixed(2)} ms + PostgreSQL backends ${pgMs.toFixed(2)} ms = ` +
    `${(apiMs + pgMs).toFixed(2)} ms: ${cores} cores given to nothing else would top out near ` +
    `${int((cores * 1000) / (apiMs + pgMs))} captures/s (load generator, WAL writer and checkpointer not counted).`)
  print('')
  print(`Reads (one gate with ${int(info.rows)}+ captures in the last 24 h; sequential, keep-alive):`)
  for (const line of textTable(
    [
      ['operation', 'p50', 'p95', 'samples', 'total'],
      ...result.reads.map((r) => [r.name, ms(r.p50Ms), ms(r.p95Ms), String(r.samples), r.total === undefined ? '' : int(r.total)]),
    ],
    new Set([1, 2, 3, 4]),
  )) print(`  ${line}`)
  print('')
  print(`API peak RSS (VmHWM): ${result.peakRssMb.afterIngest.toFixed(0)} MB after ingest, ` +
    `${result.peakRssMb.end.toFixed(0)} MB at the end`)
  print('')
  print('Targets:')
  for (const line of textTable(
    [['target', 'measured', 'met'], ...result.targets.map((t) => [t.target, t.measured, t.met ? 'yes' : 'NO'])],
  )) print(`  ${line}`)
}
