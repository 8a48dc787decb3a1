import { describe, expect, test } from 'bun:test'
import { Registry } from '../../../src/metrics/index.ts'
import { familyOf, sampleOf } from '../../support/prometheus-text.ts'

describe('Gauge', () => {
  test('sets, increments and decrements', () => {
    const registry = new Registry()
    const gauge = registry.gauge({ name: 'in_flight', help: 'x' })
    gauge.set(10)
    gauge.inc()
    gauge.inc(4)
    gauge.dec()
    gauge.dec(2.5)
    expect(gauge.get()).toBe(11.5)
    expect(familyOf(registry.render(), 'in_flight').metrics).toEqual([{ value: '11.5' }])
  })

  test('goes negative', () => {
    const gauge = new Registry().gauge({ name: 'g', help: 'x' })
    gauge.dec(3)
    expect(gauge.get()).toBe(-3)
  })

  test('bound children keep separate values', () => {
    const registry = new Registry()
    const gauge = registry.gauge({ name: 'breaker_state', help: 'x', labelNames: ['state'] })
    const open = gauge.labels('open')
    open.set(1)
    gauge.labels('closed').set(0)
    const family = familyOf(registry.render(), 'breaker_state')
    expect(family.type).toBe('GAUGE')
    expect(sampleOf(family, { state: 'open' })?.value).toBe('1')
    expect(sampleOf(family, { state: 'closed' })?.value).toBe('0')
  })

  test('collect can rebuild the series from scratch on each scrape', () => {
    const registry = new Registry()
    let states = ['closed']
    registry.gauge({
      name: 'state',
      help: 'x',
      labelNames: ['state'],
      collect: (gauge) => {
        gauge.reset()
        for (const state of states) gauge.labels(state).set(1)
      },
    })
    expect(familyOf(registry.render(), 'state').metrics.map((m) => m.labels?.state)).toEqual([
      'closed',
    ])
    states = ['open']
    expect(familyOf(registry.render(), 'state').metrics.map((m) => m.labels?.state)).toEqual([
      'open',
    ])
  })
})
