import { describe, expect, test } from 'bun:test'
import { PROMETHEUS_CONTENT_TYPE, Registry } from '../../../src/metrics/index.ts'
import { familyOf, parseExposition, sampleOf } from '../../support/prometheus-text.ts'

describe('Registry.render', () => {
  test('writes HELP and TYPE for each family, in registration order, ending with a newline', () => {
    const registry = new Registry()
    registry.counter({ name: 'b_total', help: 'Bs.' })
    registry.gauge({ name: 'a', help: 'As.' })
    registry.histogram({ name: 'c_seconds', help: 'Cs.' })
    const text = registry.render()

    expect(text.endsWith('\n')).toBe(true)
    const families = parseExposition(text)
    expect(families.map((f) => [f.name, f.type, f.help])).toEqual([
      ['b_total', 'COUNTER', 'Bs.'],
      ['a', 'GAUGE', 'As.'],
      ['c_seconds', 'HISTOGRAM', 'Cs.'],
    ])
  })

  test('exports an unlabelled metric as 0 before its first update', () => {
    const registry = new Registry()
    registry.counter({ name: 'untouched_total', help: 'x' })
    expect(familyOf(registry.render(), 'untouched_total').metrics).toEqual([{ value: '0' }])
  })

  test('exports a labelled metric without series until a child exists', () => {
    const registry = new Registry()
    registry.counter({ name: 'lazy_total', help: 'x', labelNames: ['a'] })
    expect(familyOf(registry.render(), 'lazy_total').metrics).toEqual([])
  })

  test('escapes backslash, double quote and newline in label values', () => {
    const registry = new Registry()
    const gauge = registry.gauge({ name: 'paths', help: 'x', labelNames: ['path', 'note'] })
    gauge.labels('C:\\DIR\\FILE.TXT', 'Cannot find file:\n"FILE.TXT"').set(1)
    const text = registry.render()

    expect(text).toContain(
      'paths{path="C:\\\\DIR\\\\FILE.TXT",note="Cannot find file:\\n\\"FILE.TXT\\""} 1',
    )
    expect(familyOf(text, 'paths').metrics[0].labels).toEqual({
      path: 'C:\\DIR\\FILE.TXT',
      note: 'Cannot find file:\n"FILE.TXT"',
    })
  })

  test('escapes backslash and newline in help text, and keeps quotes', () => {
    const registry = new Registry()
    registry.gauge({ name: 'h', help: 'a "quoted" \\ path\nsecond line' })
    const text = registry.render()
    expect(text).toContain('# HELP h a "quoted" \\\\ path\\nsecond line\n')
    expect(familyOf(text, 'h').help).toBe('a "quoted" \\ path\nsecond line')
  })

  test('keeps UTF-8 label values as they are', () => {
    const registry = new Registry()
    registry
      .gauge({ name: 'u', help: 'x', labelNames: ['v'] })
      .labels('día ✓')
      .set(2)
    expect(sampleOf(familyOf(registry.render(), 'u'), { v: 'día ✓' })?.value).toBe('2')
  })

  test('spells non-finite values +Inf, -Inf and NaN', () => {
    const registry = new Registry()
    const gauge = registry.gauge({ name: 'g', help: 'x', labelNames: ['k'] })
    gauge.labels('pos').set(Infinity)
    gauge.labels('neg').set(-Infinity)
    gauge.labels('nan').set(NaN)
    const family = familyOf(registry.render(), 'g')
    expect(family.metrics.map((m) => [m.labels?.k, m.value])).toEqual([
      ['pos', '+Inf'],
      ['neg', '-Inf'],
      ['nan', 'NaN'],
    ])
  })

  test('runs collect callbacks at scrape time', () => {
    const registry = new Registry()
    let pool = 3
    registry.gauge({
      name: 'pool_open',
      help: 'x',
      labelNames: ['db_name'],
      collect: (gauge) => gauge.labels('svc').set(pool),
    })
    expect(sampleOf(familyOf(registry.render(), 'pool_open'), { db_name: 'svc' })?.value).toBe('3')
    pool = 7
    expect(sampleOf(familyOf(registry.render(), 'pool_open'), { db_name: 'svc' })?.value).toBe('7')
  })

  test('runs registry collectors before the metrics render, and can remove them', () => {
    const registry = new Registry()
    const a = registry.gauge({ name: 'a', help: 'x' })
    const b = registry.gauge({ name: 'b', help: 'x' })
    let reads = 0
    const remove = registry.addCollector(() => {
      reads++
      a.set(reads)
      b.set(reads * 10)
    })
    const text = registry.render()
    expect(familyOf(text, 'a').metrics[0].value).toBe('1')
    expect(familyOf(text, 'b').metrics[0].value).toBe('10')
    remove()
    registry.render()
    expect(reads).toBe(1)
  })

  test('a throwing collect callback is reported and the scrape goes on', () => {
    const errors: Array<[unknown, string | undefined]> = []
    const registry = new Registry({ onCollectError: (error, name) => errors.push([error, name]) })
    registry.gauge({
      name: 'broken',
      help: 'x',
      collect: () => {
        throw new Error('pool gone')
      },
    })
    registry.gauge({ name: 'fine', help: 'x' }).set(1)
    const text = registry.render()
    expect(familyOf(text, 'fine').metrics[0].value).toBe('1')
    expect(familyOf(text, 'broken').metrics[0].value).toBe('0')
    expect(errors.map(([error, name]) => [(error as Error).message, name])).toEqual([
      ['pool gone', 'broken'],
    ])
  })

  test('exports the 0.0.4 text content type', () => {
    expect(PROMETHEUS_CONTENT_TYPE).toBe('text/plain; version=0.0.4; charset=utf-8')
  })
})

describe('Registry names', () => {
  test('rejects a name registered twice', () => {
    const registry = new Registry()
    registry.counter({ name: 'x_total', help: 'x' })
    expect(() => registry.gauge({ name: 'x_total', help: 'x' })).toThrow(/already registered/)
  })

  test("rejects a name that clashes with a histogram's samples", () => {
    const registry = new Registry()
    registry.histogram({ name: 'latency', help: 'x' })
    expect(() => registry.gauge({ name: 'latency_count', help: 'x' })).toThrow(/already registered/)
  })

  test.each(['', '1abc', 'has-dash', 'has space', 'é'])('rejects the metric name %p', (name) => {
    expect(() => new Registry().counter({ name, help: 'x' })).toThrow(/invalid metric name/)
  })

  test.each(['__reserved', '1x', 'a-b', ''])('rejects the label name %p', (label) => {
    expect(() => new Registry().counter({ name: 'x', help: 'x', labelNames: [label] })).toThrow(
      /invalid label name/,
    )
  })

  test('rejects a duplicate label name', () => {
    expect(() => new Registry().counter({ name: 'x', help: 'x', labelNames: ['a', 'a'] })).toThrow(
      /duplicate label/,
    )
  })

  test('reserves le for histograms only', () => {
    expect(() => new Registry().histogram({ name: 'h', help: 'x', labelNames: ['le'] })).toThrow(
      /invalid label name/,
    )
    expect(() => new Registry().gauge({ name: 'g', help: 'x', labelNames: ['le'] })).not.toThrow()
  })

  test('get returns a registered metric', () => {
    const registry = new Registry()
    const counter = registry.counter({ name: 'x_total', help: 'x' })
    expect(registry.get('x_total')).toBe(counter)
    expect(registry.get('nope')).toBeUndefined()
  })
})
