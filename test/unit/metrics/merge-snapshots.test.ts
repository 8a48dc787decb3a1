import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { mergeSnapshots, monotonicPart, Registry, renderSnapshot, type GaugeMerge } from '../../../src/metrics/index.ts'
import { familyOf, histogramSeries, parseExposition, sampleOf } from '../../support/prometheus-text.ts'

/** The same metrics in each registry, as every worker registers them. */
function workerRegistry() {
  const registry = new Registry()
  return {
    registry,
    requests: registry.counter({ name: 'requests_total', help: 'Requests.', labelNames: ['gate', 'result'] }),
    plain: registry.counter({ name: 'plain_total', help: 'No labels.' }),
    latency: registry.histogram({ name: 'latency_seconds', help: 'Latency.', labelNames: ['target'], buckets: [0.01, 0.1, 1] }),
    inFlight: registry.gauge({ name: 'in_flight', help: 'In flight.' }),
  }
}

type Op =
  | { kind: 'inc'; worker: number; gate: string; result: string; amount: number }
  | { kind: 'plain'; worker: number }
  | { kind: 'observe'; worker: number; target: string; value: number }
  | { kind: 'gauge'; worker: number; delta: number }

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('inc' as const),
    worker: fc.nat(2),
    gate: fc.constantFrom('a', 'b', 'with "quote"', 'new\nline'),
    result: fc.constantFrom('match', 'diff'),
    amount: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({ kind: fc.constant('plain' as const), worker: fc.nat(2) }),
  fc.record({
    kind: fc.constant('observe' as const),
    worker: fc.nat(2),
    target: fc.constantFrom('live', 'shadow'),
    // Powers of two are exact in binary, so the sums do not depend on the order of addition.
    value: fc.constantFrom(0.0078125, 0.0625, 0.5, 2, 1024),
  }),
  fc.record({ kind: fc.constant('gauge' as const), worker: fc.nat(2), delta: fc.integer({ min: -3, max: 3 }) }),
)

function apply(target: ReturnType<typeof workerRegistry>, o: Op): void {
  switch (o.kind) {
    case 'inc':
      return target.requests.labels(o.gate, o.result).inc(o.amount)
    case 'plain':
      return target.plain.inc()
    case 'observe':
      return target.latency.labels(o.target).observe(o.value)
    case 'gauge':
      return target.inFlight.inc(o.delta)
  }
}

describe('mergeSnapshots', () => {
  test('three workers merged read as one process that did all their work', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const workers = [workerRegistry(), workerRegistry(), workerRegistry()]
        const alone = workerRegistry()
        for (const o of ops) {
          apply(workers[o.worker]!, o)
          apply(alone, o)
        }
        const merged = renderSnapshot(mergeSnapshots(workers.map((w) => w.registry.snapshot())))
        // Same families and samples; series may come in another order (first seen per worker).
        expect(sortedSamples(merged)).toEqual(sortedSamples(alone.registry.render()))
        parseExposition(merged)
      }),
      { numRuns: 200 },
    )
  })

  test('adds histograms bucket by bucket, with their sums and counts', () => {
    const [a, b] = [workerRegistry(), workerRegistry()]
    a.latency.labels('live').observe(0.005)
    a.latency.labels('live').observe(0.5)
    b.latency.labels('live').observe(0.05)
    b.latency.labels('live').observe(5)
    const text = renderSnapshot(mergeSnapshots([a.registry.snapshot(), b.registry.snapshot()]))
    const series = histogramSeries(text, 'latency_seconds', { target: 'live' })
    expect(series.buckets).toEqual({ '0.01': '1', '0.1': '2', '1': '3', '+Inf': '4' })
    expect(series.count).toBe('4')
    expect(Number(series.sum)).toBeCloseTo(5.555, 10)
  })

  const gaugeCases: ReadonlyArray<[GaugeMerge, readonly number[], number]> = [
    ['sum', [3, 4, 5], 12],
    ['max', [3, 7, 5], 7],
    ['min', [3, 7, 1], 1],
  ]
  for (const [merge, values, expected] of gaugeCases) {
    test(`a gauge with merge ${merge} of ${values.join(', ')} is ${expected}`, () => {
      const snapshots = values.map((value) => {
        const registry = new Registry()
        registry.gauge({ name: 'g', help: 'G.', labelNames: ['db_name'], merge }).labels('svc').set(value)
        return registry.snapshot()
      })
      const text = renderSnapshot(mergeSnapshots(snapshots))
      expect(sampleOf(familyOf(text, 'g'), { db_name: 'svc' })?.value).toBe(String(expected))
    })
  }

  test('a gauge one process could not read (NaN) stays NaN under max and min', () => {
    const snapshots = [1, NaN].map((value) => {
      const registry = new Registry()
      registry.gauge({ name: 'g', help: 'G.', merge: 'max' }).set(value)
      return registry.snapshot()
    })
    expect(renderSnapshot(mergeSnapshots(snapshots))).toContain('\ng NaN\n')
  })

  test('a series only some processes have is kept as they have it', () => {
    const [a, b] = [workerRegistry(), workerRegistry()]
    a.requests.labels('a', 'match').inc(2)
    b.requests.labels('b', 'diff').inc(3)
    const family = familyOf(renderSnapshot(mergeSnapshots([a.registry.snapshot(), b.registry.snapshot()])), 'requests_total')
    expect(sampleOf(family, { gate: 'a', result: 'match' })?.value).toBe('2')
    expect(sampleOf(family, { gate: 'b', result: 'diff' })?.value).toBe('3')
  })

  test('a family declared otherwise by another build keeps the first declaration, unmixed', () => {
    const a = new Registry()
    a.histogram({ name: 'h', help: 'H.', buckets: [1, 2] }).observe(1)
    const b = new Registry()
    b.histogram({ name: 'h', help: 'H.', buckets: [1, 5] }).observe(1)
    const c = new Registry()
    c.counter({ name: 'h', help: 'H.' }).inc()
    const text = renderSnapshot(mergeSnapshots([a.snapshot(), b.snapshot(), c.snapshot()]))
    expect(histogramSeries(text, 'h').count).toBe('1')
  })

  test('a gone process keeps its counters and histograms, not its gauges', () => {
    const gone = workerRegistry()
    gone.requests.labels('a', 'match').inc(4)
    gone.latency.labels('live').observe(0.5)
    gone.inFlight.set(9)
    const live = workerRegistry()
    live.requests.labels('a', 'match').inc(1)
    live.inFlight.set(2)
    const text = renderSnapshot(mergeSnapshots([monotonicPart(gone.registry.snapshot()), live.registry.snapshot()]))
    expect(sampleOf(familyOf(text, 'requests_total'), { gate: 'a', result: 'match' })?.value).toBe('5')
    expect(histogramSeries(text, 'latency_seconds', { target: 'live' }).count).toBe('1')
    expect(sampleOf(familyOf(text, 'in_flight'))?.value).toBe('2')
  })
})

describe('renderSnapshot', () => {
  test('writes what Registry.render writes for the same registry', () => {
    const w = workerRegistry()
    w.requests.labels('back\\slash', 'diff').inc(3)
    w.requests.labels('a', 'match').inc()
    w.latency.labels('shadow').observe(0.05)
    w.latency.labels('live').observe(Infinity)
    w.inFlight.set(-1)
    const nan = w.registry.gauge({ name: 'unknown_bytes', help: 'Help with \\ and\nnewline.' })
    nan.set(NaN)
    expect(renderSnapshot(w.registry.snapshot())).toBe(w.registry.render())
  })

  test('a snapshot is a copy: later updates do not change it', () => {
    const w = workerRegistry()
    w.latency.labels('live').observe(0.5)
    const snapshot = w.registry.snapshot()
    const before = renderSnapshot(snapshot)
    w.latency.labels('live').observe(0.5)
    w.plain.inc()
    expect(renderSnapshot(snapshot)).toBe(before)
  })

  test('crosses a process boundary intact: structured clone keeps NaN and infinities', () => {
    const w = workerRegistry()
    w.latency.labels('live').observe(Infinity)
    w.inFlight.set(NaN)
    const snapshot = w.registry.snapshot()
    expect(renderSnapshot(structuredClone(snapshot))).toBe(renderSnapshot(snapshot))
  })
})

/** Every sample line and the HELP/TYPE lines, sorted: equal when the same series have the same values. */
function sortedSamples(text: string): string[] {
  return text.split('\n').filter((line) => line !== '').sort()
}
