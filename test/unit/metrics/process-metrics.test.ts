import { afterEach, describe, expect, test } from 'bun:test'
import {
  EventLoopLag,
  registerProcessMetrics,
  Registry,
  type ProcessMetricsHandle,
} from '../../../src/metrics/index.ts'
import { familyOf, parseExposition, sampleOf } from '../../support/prometheus-text.ts'

let handle: ProcessMetricsHandle | undefined
afterEach(() => handle?.stop())

function value(text: string, name: string): number {
  return Number(familyOf(text, name).metrics[0].value)
}

describe('registerProcessMetrics', () => {
  test('exports CPU, memory, start time and Bun runtime series', () => {
    const registry = new Registry()
    handle = registerProcessMetrics(registry)
    const text = registry.render()

    expect(familyOf(text, 'process_cpu_seconds_total').type).toBe('COUNTER')
    expect(value(text, 'process_cpu_seconds_total')).toBeGreaterThan(0)
    expect(value(text, 'process_cpu_seconds_total')).toBeCloseTo(
      value(text, 'process_cpu_user_seconds_total') +
        value(text, 'process_cpu_system_seconds_total'),
      6,
    )
    expect(value(text, 'process_resident_memory_bytes')).toBeGreaterThan(1e6)
    const start = value(text, 'process_start_time_seconds')
    expect(start).toBeLessThanOrEqual(Date.now() / 1000)
    expect(start).toBeGreaterThan(Date.now() / 1000 - process.uptime() - 5)
    expect(value(text, 'bun_heap_used_bytes')).toBeGreaterThan(0)
    // JavaScriptCore's heapUsed can briefly exceed heapTotal (they are read
    // from different counters), so only their presence is checked.
    expect(value(text, 'bun_heap_size_bytes')).toBeGreaterThan(0)
    expect(familyOf(text, 'bun_external_memory_bytes').type).toBe('GAUGE')
    expect(value(text, 'bun_event_loop_lag_seconds')).toBeGreaterThanOrEqual(0)
    expect(value(text, 'bun_event_loop_lag_max_seconds')).toBeGreaterThanOrEqual(0)
    expect(sampleOf(familyOf(text, 'bun_info'), { version: Bun.version })?.value).toBe('1')
  })

  test('CPU counters never go down between scrapes', () => {
    const registry = new Registry()
    handle = registerProcessMetrics(registry)
    const first = value(registry.render(), 'process_cpu_seconds_total')
    let spin = 0
    for (let i = 0; i < 1e6; i++) spin += i
    expect(spin).toBeGreaterThan(0)
    expect(value(registry.render(), 'process_cpu_seconds_total')).toBeGreaterThanOrEqual(first)
  })

  test.skipIf(process.platform !== 'linux')('reads /proc on Linux: virtual memory and fds', () => {
    const registry = new Registry()
    handle = registerProcessMetrics(registry)
    const text = registry.render()
    expect(value(text, 'process_virtual_memory_bytes')).toBeGreaterThan(
      value(text, 'process_resident_memory_bytes'),
    )
    expect(value(text, 'process_open_fds')).toBeGreaterThanOrEqual(3)
    expect(value(text, 'process_max_fds')).toBeGreaterThanOrEqual(value(text, 'process_open_fds'))
  })

  test('leaves out the /proc series where /proc is missing', () => {
    const registry = new Registry()
    handle = registerProcessMetrics(registry, { procDir: '/nonexistent/proc/self' })
    const names = parseExposition(registry.render()).map((f) => f.name)
    expect(names).not.toContain('process_virtual_memory_bytes')
    expect(names).not.toContain('process_open_fds')
    expect(names).not.toContain('process_max_fds')
    expect(names).toContain('process_resident_memory_bytes')
  })
})

describe('EventLoopLag', () => {
  test('measures how late its timer fires when the loop is blocked', async () => {
    const lag = new EventLoopLag(5)
    lag.start()
    try {
      await Bun.sleep(1)
      const until = performance.now() + 60
      while (performance.now() < until) {
        // Block the event loop, as a long synchronous task would.
      }
      await Bun.sleep(20)
      // Later samples are on time again; the window's max keeps the stall.
      expect(lag.takeMax()).toBeGreaterThan(0.03)
      expect(lag.takeMax()).toBeLessThan(0.03)
    } finally {
      lag.stop()
    }
  })

  test('reads 0 before its first sample', () => {
    const lag = new EventLoopLag(1000)
    expect(lag.lastSeconds).toBe(0)
    expect(lag.takeMax()).toBe(0)
  })
})
