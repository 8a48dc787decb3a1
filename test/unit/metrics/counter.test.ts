import { describe, expect, test } from 'bun:test'
import { Registry } from '../../../src/metrics/index.ts'
import { familyOf, sampleOf } from '../../support/prometheus-text.ts'

describe('Counter', () => {
  test('adds increments and renders the total per label set', () => {
    const registry = new Registry()
    const counter = registry.counter({ name: 'jobs_total', help: 'x', labelNames: ['kind'] })
    counter.labels('a').inc()
    counter.labels('a').inc(2.5)
    counter.labels('b').inc()
    const family = familyOf(registry.render(), 'jobs_total')
    expect(family.type).toBe('COUNTER')
    expect(sampleOf(family, { kind: 'a' })?.value).toBe('3.5')
    expect(sampleOf(family, { kind: 'b' })?.value).toBe('1')
  })

  test.each([-1, 0, NaN])('ignores an increment of %p rather than throw or go down', (amount) => {
    const counter = new Registry().counter({ name: 'x_total', help: 'x' })
    counter.inc(2)
    counter.inc(amount)
    expect(counter.get()).toBe(2)
  })

  test('positional and object label values reach the same child', () => {
    const counter = new Registry().counter({
      name: 'x_total',
      help: 'x',
      labelNames: ['gate', 'result'],
    })
    expect(counter.labels({ result: 'diff', gate: 'g' })).toBe(counter.labels('g', 'diff'))
  })

  test('the object form names every label; a missing one is a type error and renders empty', () => {
    const registry = new Registry()
    const counter = registry.counter({ name: 'x_total', help: 'x', labelNames: ['gate', 'result'] })
    // @ts-expect-error result is missing
    counter.labels({ gate: 'g' }).inc()
    expect(familyOf(registry.render(), 'x_total').metrics[0].labels).toEqual({
      gate: 'g',
      result: '',
    })
  })

  test('a number and its string are the same label value', () => {
    const registry = new Registry()
    const counter = registry.counter({ name: 'x_total', help: 'x', labelNames: ['code'] })
    counter.labels(200).inc()
    counter.labels('200').inc()
    expect(counter.labels(200)).toBe(counter.labels('200'))
    expect(familyOf(registry.render(), 'x_total').metrics).toEqual([
      { value: '2', labels: { code: '200' } },
    ])
  })

  test('throws on the wrong number of label values, naming the labels', () => {
    const counter = new Registry().counter({ name: 'x_total', help: 'x', labelNames: ['a', 'b'] })
    // @ts-expect-error one value for two labels
    expect(() => counter.labels('only')).toThrow(
      'metric x_total takes 2 label value(s) (a, b), got 1',
    )
  })

  test('unlabelled calls on a labelled counter throw', () => {
    const counter = new Registry().counter({ name: 'x_total', help: 'x', labelNames: ['a'] })
    expect(() => counter.inc()).toThrow(/takes 1 label value/)
  })

  test('remove drops one series and reset drops all', () => {
    const registry = new Registry()
    const counter = registry.counter({ name: 'x_total', help: 'x', labelNames: ['gate', 'code'] })
    counter.labels('a', 200).inc()
    counter.labels('b', 200).inc()
    expect(counter.remove('a', 200)).toBe(true)
    expect(counter.remove('a', 200)).toBe(false)
    expect(familyOf(registry.render(), 'x_total').metrics.map((m) => m.labels?.gate)).toEqual(['b'])
    // A removed series starts again from 0, under either spelling of the value.
    counter.labels('a', '200').inc()
    expect(counter.labels('a', 200).get()).toBe(1)
    counter.reset()
    expect(familyOf(registry.render(), 'x_total').metrics).toEqual([])
  })

  test('collect can raise a counter to a running total kept elsewhere', () => {
    const registry = new Registry()
    let total = 5
    registry.counter({
      name: 'external_total',
      help: 'x',
      collect: (counter) => counter.inc(total - counter.get()),
    })
    expect(familyOf(registry.render(), 'external_total').metrics[0].value).toBe('5')
    total = 12
    expect(familyOf(registry.render(), 'external_total').metrics[0].value).toBe('12')
  })
})
