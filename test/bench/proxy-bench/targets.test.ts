import { describe, expect, test } from 'bun:test'
import type { LoadResult } from './load.ts'
import { checkTargets, pairedRatio, ROW, type MeasuredRow } from './targets.ts'

const run = (rps: number): LoadResult => ({ tool: 'wrk', rps, p50Ms: 1, p99Ms: 5, requests: rps * 6, errors: 0 })

describe('the "no worse than before" target', () => {
  test('pairs each round with the same round of the code before', () => {
    expect(pairedRatio([run(100), run(90), run(120)], [run(100), run(100), run(100)])).toBeCloseTo(1.0)
    expect(pairedRatio([run(90), run(110)], [run(100), run(100)])).toBeCloseTo(1.0)
    expect(pairedRatio([run(100)], [run(100), run(100)])).toBeUndefined()
    expect(pairedRatio(undefined, [run(100)])).toBeUndefined()
  })

  test('a run whose median is lower only because a round hit background load is not a regression', () => {
    // Background load hit both runs of round 2 and ours of round 3: the medians read 0.58x, the pairs 0.99x.
    const ours = [run(18_000), run(10_000), run(10_500)]
    const before = [run(18_200), run(10_100), run(19_000)]
    const rows: MeasuredRow[] = [
      { name: ROW.none, workers: '1', result: run(10_500), rounds: ours },
      { name: ROW.baselineNone, workers: '1', result: run(18_200), rounds: before },
    ]
    const check = checkTargets(rows, [], '1').find((c) => c.target.startsWith('no shadowing, 1 worker: no worse'))!
    expect(check.met).toBe(true)
    expect(check.measured).toContain('paired by round')
    // A real regression is still one, paired or not.
    const slower: MeasuredRow[] = [
      { name: ROW.none, workers: '1', result: run(15_000), rounds: [run(15_000), run(15_200), run(14_800)] },
      { name: ROW.baselineNone, workers: '1', result: run(18_200), rounds: before },
    ]
    expect(checkTargets(slower, [], '1').find((c) => c.target.startsWith('no shadowing, 1 worker: no worse'))!.met).toBe(false)
  })
})

describe('the shadowing targets beside the raw-socket floor of the same run', () => {
  const shadowing = (rows: MeasuredRow[]) => checkTargets(rows, [], 'auto').filter((c) => c.target.startsWith('ours, shadow + diff'))
  const rounds = (...rps: number[]) => ({ result: run(rps[Math.floor(rps.length / 2)]!), rounds: rps.map(run) })
  const base: MeasuredRow[] = [
    { name: ROW.mirror, ...rounds(10_000, 10_000, 10_000) },
    { name: ROW.identical, workers: 'auto', result: run(8_000) },
    { name: ROW.tenth, workers: 'auto', result: run(8_000) },
    { name: ROW.every, workers: 'auto', result: run(6_000) },
  ]

  test('a floor under a missed target says so; the verdict stays the measured one', () => {
    const checks = shadowing([...base, { name: ROW.floor, ...rounds(13_000, 13_000, 13_000) }])
    // 1.30x: under the 1.5x targets, over the 1.2x one.
    expect(checks.map((c) => c.measured.includes('under the target itself'))).toEqual([true, true, false])
    expect(checks.every((c) => c.measured.includes('the raw-socket floor (one process, identical shadow) 1.30x'))).toBe(true)
    expect(checks.map((c) => c.met)).toEqual([false, false, false])
  })

  test('a target that ours met is never called under the floor, whatever the floor read', () => {
    const met: MeasuredRow[] = base.map((r) => (r.name === ROW.identical ? { ...r, result: run(16_000) } : r))
    const identical = shadowing([...met, { name: ROW.floor, ...rounds(13_000, 13_000, 13_000) }])[0]!
    expect(identical.met).toBe(true)
    expect(identical.measured).not.toContain('under the target itself')
  })

  test('the floor is paired with nginx + mirror round by round: one round of background load does not move it', () => {
    // Medians alone: 14,000 / 10,000 = 1.40x; by round the floor made 1.5x of the same round's nginx + mirror twice.
    const rows: MeasuredRow[] = [
      ...base.filter((r) => r.name !== ROW.mirror),
      { name: ROW.mirror, result: run(10_000), rounds: [run(10_000), run(9_000), run(6_000)] },
      { name: ROW.floor, result: run(14_000), rounds: [run(15_000), run(14_000), run(13_500)] },
    ]
    expect(shadowing(rows)[0]!.measured).toContain('identical shadow) 1.56x')
  })

  test('without the reference row nothing is said of the floor', () => {
    expect(shadowing(base).some((c) => c.measured.includes('floor'))).toBe(false)
  })
})

describe('the no-shadowing target beside Bun\'s own pass-through of the same run', () => {
  const direct: MeasuredRow = { name: ROW.direct, result: run(50_000), rounds: [run(50_000), run(50_000), run(50_000)] }
  const passThrough: MeasuredRow = { name: ROW.passThrough, result: run(15_000), rounds: [run(15_000), run(15_000), run(15_000)] }
  /** The no-shadowing check when ours made `rps` with `auto`, with or without the pass-through row. */
  const noShadowing = (rps: number, rows: MeasuredRow[] = [passThrough]) =>
    checkTargets([direct, { name: ROW.none, workers: 'auto', result: run(rps) }, ...rows], [], 'auto').find((c) =>
      c.target.startsWith('no shadowing (workers auto)'),
    )!

  test('a pass-through under 0.40x direct says so beside a missed target', () => {
    const check = noShadowing(14_500)
    expect(check.met).toBe(false)
    expect(check.measured).toBe("0.29x; Bun's pass-through (one process) 0.30x, under the target itself")
  })

  test('beside a met target, or without the row, nothing is said against it', () => {
    const met = noShadowing(21_000)
    expect(met.met).toBe(true)
    expect(met.measured).toBe("0.42x; Bun's pass-through (one process) 0.30x")
    expect(noShadowing(14_500, []).measured).toBe('0.29x')
  })

  test('a pass-through at or over 0.40x beside a missed target: the miss is the proxy\'s, and nothing more is said', () => {
    const over: MeasuredRow = { name: ROW.passThrough, result: run(21_000), rounds: [run(21_000), run(20_000), run(22_000)] }
    const check = noShadowing(14_500, [over])
    expect(check.met).toBe(false)
    expect(check.measured).toBe("0.29x; Bun's pass-through (one process) 0.42x")
  })

  test('the pass-through is paired with direct round by round', () => {
    // Medians alone: 17,000 / 50,000 = 0.34x; by round 0.44, 0.42 and 0.26x of the same round's direct.
    const slowRound: MeasuredRow = { name: ROW.direct, result: run(50_000), rounds: [run(40_000), run(50_000), run(65_000)] }
    const uneven: MeasuredRow = { name: ROW.passThrough, result: run(17_000), rounds: [run(17_500), run(21_000), run(17_000)] }
    const check = checkTargets([slowRound, { name: ROW.none, workers: 'auto', result: run(14_500) }, uneven], [], 'auto').find((c) =>
      c.target.startsWith('no shadowing (workers auto)'),
    )!
    expect(check.measured).toBe("0.29x; Bun's pass-through (one process) 0.42x")
  })
})
