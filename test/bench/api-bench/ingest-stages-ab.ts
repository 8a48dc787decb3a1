/**
 * ingest-stages.ts against two checkouts in turns: the API's CPU per
 * capture, stage by stage, before and after a change. Run:
 * `bun run test/bench/api-bench/ingest-stages-ab.ts <baseline checkout> [rounds] [--db | --db-only]`
 * (default 4 rounds; the flags go to ingest-stages.ts). Each round runs the stage script once per checkout,
 * each in its own process (its own modules and JIT), the order alternating
 * from round to round so that a slow spell of the shared machine falls on
 * both sides; the table gives each side's median over the rounds and the
 * difference.
 */
import { spawnSync } from 'bun'
import { resolve } from 'node:path'
import { textTable } from './text-table.ts'

const baseline = process.argv[2]
if (baseline === undefined) throw new Error('usage: ingest-stages-ab.ts <baseline checkout> [rounds]')
const rounds = Number(process.argv[3]?.startsWith('--') === false ? process.argv[3] : 4)
const passed = process.argv.slice(3).filter((arg) => arg.startsWith('--'))
const current = resolve(import.meta.dir, '../../..')
const stages = resolve(import.meta.dir, 'ingest-stages.ts')

function run(root: string): Record<string, number> {
  const child = spawnSync(['bun', 'run', stages, '--root', root, '--json', ...passed], { stdout: 'pipe', stderr: 'inherit' })
  if (child.exitCode !== 0) throw new Error(`ingest-stages.ts --root ${root} exited ${child.exitCode}`)
  const lines = child.stdout.toString().trim().split('\n')
  return JSON.parse(lines[lines.length - 1]!) as Record<string, number>
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const sides = { baseline: [] as Record<string, number>[], current: [] as Record<string, number>[] }
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? (['baseline', 'current'] as const) : (['current', 'baseline'] as const)
  for (const side of order) sides[side].push(run(side === 'baseline' ? resolve(baseline) : current))
  console.error(`round ${round + 1}/${rounds} done`)
}

const names = [...new Set([...sides.baseline, ...sides.current].flatMap((figures) => Object.keys(figures)))]
const rows = [['stage (CPU µs per capture, median of rounds)', 'baseline', 'current', 'difference']]
for (const name of names) {
  const of = (runs: Record<string, number>[]) => {
    const values = runs.map((figures) => figures[name]).filter((us) => us !== undefined)
    return values.length === 0 ? undefined : median(values)
  }
  const a = of(sides.baseline)
  const b = of(sides.current)
  const cell = (us: number | undefined) => (us === undefined ? '—' : us.toFixed(1))
  rows.push([name, cell(a), cell(b), a === undefined || b === undefined ? '—' : `${b - a >= 0 ? '+' : ''}${(b - a).toFixed(1)}`])
}
for (const line of textTable(rows, new Set([1, 2, 3]))) console.log(line)
console.log(`baseline ${resolve(baseline)}, current ${current}; ${rounds} rounds, alternating order`)
