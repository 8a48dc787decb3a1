/**
 * Diff engine benchmark (docs/diff.md "Benchmark"). Run alone with
 * `bun run test/bench/diff.bench.ts`, or call runDiffBench() from a bench
 * index. Compares our engine with json-diff-ts (raw `diff`, without our
 * semantics), fast-json-patch `compare` and the rfc6902 package on the same
 * realistic API-like pairs, diff only (bodies already parsed) and end to end
 * from bytes (processCapture: decoding, JSON.parse, redaction, diff).
 *
 * Throughput is (live JSON bytes + shadow JSON bytes) / time. Each figure is
 * the best mean of several timed rounds, so that other work on a shared
 * machine disturbs it as little as possible.
 */
import { compare as fastJsonPatchCompare } from 'fast-json-patch'
import { atomizeChangeset, diff as jsonDiffTs } from 'json-diff-ts'
import { createPatch as rfc6902CreatePatch } from 'rfc6902'
import {
  compareDocuments,
  compileCaptureOptions,
  compileDiffConfig,
  DEFAULT_DIFF_CONFIG,
  processCapture,
  type CaptureInput,
} from '../../src/diff/index.ts'
import { makePair, type DocumentPair } from './fixtures/api-like.ts'

export interface DiffBenchRow {
  readonly case: string
  readonly engine: string
  readonly msPerOp: number | undefined
  readonly mbPerSecond: number | undefined
  /** Operations in the engine's patch (json-diff-ts: atomized changes). */
  readonly patchOps: number | undefined
  readonly note?: string
}

export interface DiffBenchTarget {
  readonly target: string
  readonly measured: string
  readonly met: boolean
}

export interface DiffBenchResult {
  readonly rows: DiffBenchRow[]
  readonly targets: DiffBenchTarget[]
}

export interface DiffBenchOptions {
  /** Where lines go. @default console.log */
  readonly print?: (line: string) => void
  /** Milliseconds of timed runs per figure. @default 1200 */
  readonly budgetMs?: number
}

/** One rfc6902 run longer than this (estimated) is skipped with a note. */
const RFC6902_MAX_RUN_MS = 5_000
const ROUNDS = 15

type Engine = {
  name: string
  run: (pair: DocumentPair) => unknown
  count: (result: unknown) => number
}

const ours = compileDiffConfig(DEFAULT_DIFF_CONFIG)
const ENGINES: Engine[] = [
  {
    name: 'ours',
    run: (p) => compareDocuments(p.live, p.shadow, ours),
    count: (r) => (r as unknown[]).length,
  },
  {
    name: 'fast-json-patch compare',
    run: (p) => fastJsonPatchCompare(p.live as object, p.shadow as object),
    count: (r) => (r as unknown[]).length,
  },
  {
    name: 'json-diff-ts diff (raw)',
    run: (p) => jsonDiffTs(p.live, p.shadow),
    count: (r) => atomizeChangeset(r as Parameters<typeof atomizeChangeset>[0]).length,
  },
  {
    name: 'rfc6902 createPatch',
    run: (p) => rfc6902CreatePatch(p.live, p.shadow),
    count: (r) => (r as unknown[]).length,
  },
]

/**
 * Best mean time of one call of each function, in milliseconds. The
 * functions take turns round by round, so that load from other work on a
 * shared machine falls on all of them alike and the ratios stay fair.
 */
function measureTogether(fns: Array<() => unknown>, budgetMs: number): number[] {
  const perRound = fns.map((fn) => {
    // Warm up (JIT) and calibrate: how many calls fill one round.
    let calls = 0
    const warmStart = performance.now()
    while (calls < 3 || (performance.now() - warmStart < 50 && calls < 1000)) {
      fn()
      calls++
    }
    const single = (performance.now() - warmStart) / calls
    return Math.max(1, Math.round(budgetMs / fns.length / ROUNDS / Math.max(single, 1e-4)))
  })
  const best = fns.map(() => Infinity)
  for (let round = 0; round < ROUNDS; round++) {
    fns.forEach((fn, i) => {
      const calls = perRound[i]!
      const started = performance.now()
      for (let call = 0; call < calls; call++) fn()
      best[i] = Math.min(best[i]!, (performance.now() - started) / calls)
    })
  }
  return best
}

/** Time of a single call, for deciding whether rfc6902 can run at all. */
function once(fn: () => unknown): number {
  const started = performance.now()
  fn()
  return performance.now() - started
}

/** Rows for several engines on one pair, measured together (see measureTogether). */
function rows(
  label: string,
  engines: Engine[],
  pair: DocumentPair,
  budgetMs: number,
): DiffBenchRow[] {
  const times = measureTogether(
    engines.map((engine) => () => engine.run(pair)),
    budgetMs * engines.length,
  )
  return engines.map((engine, i) => ({
    case: label,
    engine: engine.name,
    msPerOp: times[i]!,
    mbPerSecond: pair.bytes / 1e3 / times[i]!,
    patchOps: engine.count(engine.run(pair)),
  }))
}

/**
 * rfc6902 aligns arrays with a quadratic dynamic programme over elements:
 * its time grows with the square of the records per array, so it is
 * estimated from a smaller pair of the same shape before running.
 */
function rfc6902Row(
  label: string,
  pair: DocumentPair,
  probe: DocumentPair | undefined,
  budgetMs: number,
): DiffBenchRow {
  const engine = ENGINES[3]!
  if (probe !== undefined) {
    const records = (p: DocumentPair) => ((p.live as { data: unknown[] }).data ?? []).length
    const estimate =
      once(() => engine.run(probe)) * (records(pair) / Math.max(1, records(probe))) ** 2
    if (estimate > RFC6902_MAX_RUN_MS) {
      return {
        case: label,
        engine: engine.name,
        msPerOp: undefined,
        mbPerSecond: undefined,
        patchOps: undefined,
        note: `skipped: one run estimated at ~${Math.round(estimate / 1000)} s (quadratic array alignment)`,
      }
    }
  }
  return rows(label, [engine], pair, budgetMs)[0]!
}

function endToEnd(
  pair: DocumentPair,
  redactedFields: string[],
): { input: CaptureInput; run: () => unknown } {
  const encoder = new TextEncoder()
  const headers = { 'Content-Type': ['application/json'], Date: ['Mon, 01 Jan 2024 00:00:00 GMT'] }
  const input: CaptureInput = {
    request: {
      headers: { Authorization: ['Bearer secret-token'], Accept: ['application/json'] },
      body: new Uint8Array(),
    },
    live: {
      status: 200,
      headers: { ...headers, 'Set-Cookie': ['session=abc'] },
      body: encoder.encode(pair.liveText),
    },
    shadow: { status: 200, headers, body: encoder.encode(pair.shadowText) },
  }
  const options = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields })
  return { input, run: () => processCapture(input, options) }
}

export function runDiffBench(options: DiffBenchOptions = {}): DiffBenchResult {
  const print = options.print ?? console.log
  const budget = options.budgetMs ?? 1200
  const table: DiffBenchRow[] = []
  const started = performance.now()

  const mutated = {
    '1 KB': makePair('1 KB', 1_000, 11),
    '50 KB': makePair('50 KB', 50_000, 12),
    '1 MB': makePair('1 MB', 1_000_000, 13),
  }
  const identical = {
    '1 KB': makePair('1 KB', 1_000, 11, 'identical'),
    '50 KB': makePair('50 KB', 50_000, 12, 'identical'),
    '1 MB': makePair('1 MB', 1_000_000, 13, 'identical'),
  }
  const inserted = makePair('1 MB', 1_000_000, 14, 'inserted')
  const insertedProbe = makePair('probe', 100_000, 14, 'inserted')
  const records = (inserted.live as { data: unknown[] }).data.length
  const fast = ENGINES.slice(0, 3)

  for (const [size, pair] of Object.entries(mutated)) {
    const label = `diff ${size}, ~1% leaves changed + 1 insertion`
    table.push(...rows(label, fast, pair, budget))
    table.push(rfc6902Row(label, pair, size === '1 MB' ? mutated['50 KB'] : undefined, budget))
  }
  const insertLabel = `diff 1 MB, 1 record inserted mid-array of ${records}`
  table.push(...rows(insertLabel, fast, inserted, budget))
  table.push(rfc6902Row(insertLabel, inserted, insertedProbe, budget))
  for (const [size, pair] of Object.entries(identical)) {
    const label = `identical ${size}`
    table.push(...rows(label, fast, pair, budget))
    table.push(rfc6902Row(label, pair, size === '1 MB' ? identical['50 KB'] : undefined, budget))
  }

  const e2ePair = mutated['50 KB']
  const headersOnly = endToEnd(e2ePair, [])
  const withBody = endToEnd(e2ePair, ['body.data.#.email', 'body.**.phone'])
  const reference = () =>
    fastJsonPatchCompare(JSON.parse(e2ePair.liveText), JSON.parse(e2ePair.shadowText))
  const e2eTimes = measureTogether([headersOnly.run, withBody.run, reference], budget * 3)
  const e2eRows: Array<[string, number | undefined]> = [
    ['processCapture, default redaction (headers)', patchSize(headersOnly.run())],
    ['processCapture, + body.data.#.email, body.**.phone', patchSize(withBody.run())],
    ['reference: 2× JSON.parse + fast-json-patch compare', undefined],
  ]
  e2eRows.forEach(([engine, patchOps], i) => {
    const ms = e2eTimes[i]!
    table.push({
      case: 'end to end 50 KB from bytes',
      engine,
      msPerOp: ms,
      mbPerSecond: e2ePair.bytes / 1e3 / ms,
      patchOps,
    })
  })

  const targets = checkTargets(table, insertLabel)
  printTable(table, print)
  print('')
  print('Targets:')
  for (const t of targets) print(`  ${t.met ? 'met ' : 'MISS'}  ${t.target}: ${t.measured}`)
  print('')
  const seconds = ((performance.now() - started) / 1000).toFixed(1)
  print(
    `MB/s = (live + shadow JSON bytes) / time; best mean of ${ROUNDS} rounds, engines ` +
      `taking turns. Total ${seconds} s.`,
  )
  return { rows: table, targets }
}

function patchSize(processed: unknown): number {
  const comparison = (processed as { comparison: { ops?: unknown[] } }).comparison
  return comparison.ops?.length ?? 0
}

function find(rows: DiffBenchRow[], label: string, engine: string): DiffBenchRow {
  const found = rows.find((r) => r.case === label && r.engine === engine)
  if (found === undefined) throw new Error(`no bench row for ${label} / ${engine}`)
  return found
}

function checkTargets(rows: DiffBenchRow[], insertLabel: string): DiffBenchTarget[] {
  const out: DiffBenchTarget[] = []
  for (const size of ['1 KB', '50 KB']) {
    const label = `diff ${size}, ~1% leaves changed + 1 insertion`
    const us = find(rows, label, 'ours').msPerOp!
    const jd = find(rows, label, 'json-diff-ts diff (raw)').msPerOp!
    const fjp = find(rows, label, 'fast-json-patch compare').msPerOp!
    out.push({
      target: `${size}: >= 10x json-diff-ts`,
      measured: `${(jd / us).toFixed(1)}x`,
      met: jd / us >= 10,
    })
    out.push({
      target: `${size}: >= 0.75x fast-json-patch compare`,
      measured: `${(fjp / us).toFixed(2)}x`,
      met: fjp / us >= 0.75,
    })
  }
  const insert = find(rows, insertLabel, 'ours')
  out.push({
    target: '1 MB, one inserted record: < 10 ms and a few dozen ops at most',
    measured: `${insert.msPerOp!.toFixed(2)} ms, ${insert.patchOps} op(s)`,
    met: insert.msPerOp! < 10 && insert.patchOps! <= 36,
  })
  for (const size of ['1 KB', '50 KB', '1 MB']) {
    const identical = find(rows, `identical ${size}`, 'ours')
    out.push({
      target: `identical ${size}: >= 600 MB/s`,
      measured: `${identical.mbPerSecond!.toFixed(0)} MB/s`,
      met: identical.mbPerSecond! >= 600,
    })
  }
  for (const row of rows.filter((r) => r.engine.startsWith('processCapture'))) {
    out.push({
      target: `end to end 50 KB (${row.engine.replace('processCapture, ', '')}): >= 150 MB/s`,
      measured: `${row.mbPerSecond!.toFixed(0)} MB/s`,
      met: row.mbPerSecond! >= 150,
    })
  }
  return out
}

function printTable(rows: DiffBenchRow[], print: (line: string) => void): void {
  const header = ['case', 'engine', 'ms/op', 'MB/s', 'patch ops', 'vs ours']
  const lines = rows.map((r) => {
    const base = rows.find(
      (o) => o.case === r.case && (o.engine === 'ours' || o.engine.startsWith('processCapture')),
    )
    const relative =
      r.msPerOp !== undefined && base?.msPerOp !== undefined
        ? `${(r.msPerOp / base.msPerOp).toFixed(1)}x slower`
        : ''
    return [
      r.case,
      r.engine,
      r.msPerOp === undefined ? '-' : r.msPerOp < 0.1 ? r.msPerOp.toFixed(4) : r.msPerOp.toFixed(2),
      r.mbPerSecond === undefined ? '-' : r.mbPerSecond.toFixed(0),
      r.patchOps === undefined ? '-' : String(r.patchOps),
      r === base ? '' : (r.note ?? relative),
    ]
  })
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const format = (cells: string[]) =>
    cells
      .map((c, i) => (i >= 2 && i <= 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join(' | ')
  print(format(header))
  print(widths.map((w) => '-'.repeat(w)).join('-|-'))
  for (const line of lines) print(format(line))
}

if (import.meta.main) runDiffBench()
