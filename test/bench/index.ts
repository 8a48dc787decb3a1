/**
 * `bun run bench`: every benchmark in sequence (diff, API, proxy), after
 * the machine and the date, since the figures mean little without them.
 * Targets, not tests: a miss is printed, never an exit code.
 *
 * The proxy benchmark is imported dynamically: when its module or its
 * runProxyBench export is missing, it is skipped with a note. Each bench's
 * own environment knobs apply (see the top of each file), and
 * BENCH_ONLY=diff,api,proxy,replay,rediff (any of them, comma-separated) runs a subset.
 */
import { machineLines } from './api-bench/machine.ts'
import { runApiBench } from './api.bench.ts'
import { runDiffBench } from './diff.bench.ts'
import { runReplayBench } from './replay.bench.ts'
import { runRediffBench } from './rediff.bench.ts'

type Bench = { key: string; name: string; run: () => Promise<unknown> }

const ONLY = (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')

async function proxyBench(): Promise<(() => Promise<unknown>) | string> {
  try {
    const module = (await import('./proxy.bench.ts')) as { runProxyBench?: unknown }
    if (typeof module.runProxyBench !== 'function') return 'test/bench/proxy.bench.ts does not export runProxyBench'
    const run = module.runProxyBench as () => unknown
    return async () => run()
  } catch (error) {
    return `test/bench/proxy.bench.ts could not be loaded (${error instanceof Error ? error.message : String(error)})`
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  for (const line of machineLines()) console.log(line)
  const proxy = await proxyBench()
  const benches: Bench[] = [
    { key: 'diff', name: 'diff engine (docs/diff.md)', run: async () => runDiffBench() },
    { key: 'api', name: 'API (docs/benchmarks/api.md)', run: () => runApiBench({ printMachine: false }) },
  ]
  if (typeof proxy === 'function') {
    benches.push({ key: 'proxy', name: 'proxy (docs/proxy.md)', run: proxy })
  }
  benches.push({ key: 'replay', name: 'replay (docs/ci.md)', run: () => runReplayBench({ printMachine: false }) })
  benches.push({ key: 'rediff', name: 'preview and re-diff (docs/insights.md)', run: () => runRediffBench({ printMachine: false }) })
  const selected = benches.filter((b) => ONLY.length === 0 || ONLY.includes(b.key))
  if (ONLY.length > 0) console.log(`BENCH_ONLY=${ONLY.join(',')}: ${selected.map((b) => b.key).join(', ') || 'nothing'}`)

  const failed: string[] = []
  for (const bench of selected) {
    console.log('')
    console.log(`=== ${bench.name} ===`)
    const benchStarted = performance.now()
    try {
      await bench.run()
    } catch (error) {
      // One bench that cannot run (no PostgreSQL, no free port...) must not hide the others.
      failed.push(bench.name)
      console.log(`${bench.name}: could not run: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    }
    console.log(`(${bench.name}: ${((performance.now() - benchStarted) / 1000).toFixed(0)} s)`)
  }
  console.log('')
  if (typeof proxy === 'string') console.log(`proxy (docs/proxy.md): skipped: ${proxy}`)
  if (failed.length > 0) console.log(`could not run: ${failed.join(', ')}`)
  console.log(`all benchmarks: ${((performance.now() - started) / 1000).toFixed(0)} s`)
  // Exit even if a bench left a handle open (a pool, a timer): the figures are printed.
  process.exit(failed.length > 0 ? 1 : 0)
}

await main()
