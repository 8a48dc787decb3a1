import { EventLoopLag } from './event-loop-lag.ts'
import { countOpenFds, readMaxFds, readVirtualMemoryBytes } from './linux-proc.ts'
import type { Registry } from './registry.ts'

export interface ProcessMetricsOptions {
  /**
   * How often the event-loop lag is sampled, in milliseconds.
   * @default 500
   */
  readonly eventLoopLagIntervalMs?: number
  /**
   * The process's /proc directory; tests point it elsewhere.
   * @default '/proc/self'
   */
  readonly procDir?: string
}

/** Stops the background sampling of `registerProcessMetrics`. */
export interface ProcessMetricsHandle {
  stop(): void
}

/**
 * The process and runtime series (docs/reference/metrics.md "Process and
 * runtime"), with the names of Prometheus's Go client for the `process_*` ones
 * and `bun_*` for the runtime, which is Bun (JavaScriptCore), not Go. Every
 * value is read at scrape time, except the event-loop lag, sampled by a timer.
 * Series that need /proc are left out where it is missing. See docs/metrics.md
 * for the list.
 */
export function registerProcessMetrics(
  registry: Registry,
  options: ProcessMetricsOptions = {},
): ProcessMetricsHandle {
  const procDir = options.procDir ?? '/proc/self'

  const cpuUser = registry.counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
  })
  const cpuSystem = registry.counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
  })
  const cpuTotal = registry.counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
  })
  const resident = registry.gauge({
    name: 'process_resident_memory_bytes',
    help: 'Resident memory size in bytes.',
  })
  registry
    .gauge({
      name: 'process_start_time_seconds',
      help: 'Start time of the process since unix epoch in seconds.',
      // Several workers: the oldest, from when their summed counters count.
      merge: 'min',
    })
    .set(performance.timeOrigin / 1000)

  if (readVirtualMemoryBytes(procDir) !== undefined) {
    registry.gauge({
      name: 'process_virtual_memory_bytes',
      help: 'Virtual memory size in bytes.',
      collect: (gauge) => gauge.set(readVirtualMemoryBytes(procDir) ?? NaN),
    })
  }
  if (countOpenFds(procDir) !== undefined) {
    registry.gauge({
      name: 'process_open_fds',
      help: 'Number of open file descriptors.',
      collect: (gauge) => gauge.set(countOpenFds(procDir) ?? NaN),
    })
  }
  if (readMaxFds(procDir) !== undefined) {
    registry.gauge({
      name: 'process_max_fds',
      help: 'Maximum number of open file descriptors.',
      // A limit each process has, not a share: summing would overstate it.
      merge: 'max',
      collect: (gauge) => gauge.set(readMaxFds(procDir) ?? NaN),
    })
  }

  registry
    .gauge({
      name: 'bun_info',
      help: 'Bun runtime version; the value is always 1.',
      merge: 'max',
      labelNames: ['version'],
    })
    .labels(Bun.version)
    .set(1)
  const heapSize = registry.gauge({
    name: 'bun_heap_size_bytes',
    help: 'JavaScriptCore heap capacity in bytes (process.memoryUsage().heapTotal).',
  })
  const heapUsed = registry.gauge({
    name: 'bun_heap_used_bytes',
    help: 'JavaScriptCore heap in use in bytes (process.memoryUsage().heapUsed).',
  })
  const external = registry.gauge({
    name: 'bun_external_memory_bytes',
    help: 'Memory held outside the JavaScript heap by its objects, in bytes.',
  })
  const lag = new EventLoopLag(options.eventLoopLagIntervalMs ?? 500)
  registry.gauge({
    name: 'bun_event_loop_lag_seconds',
    help: 'How late the last event-loop lag probe timer fired, in seconds.',
    // Several workers: the most lagging one, which is what an alert is about.
    merge: 'max',
    collect: (gauge) => gauge.set(lag.lastSeconds),
  })
  registry.gauge({
    name: 'bun_event_loop_lag_max_seconds',
    help: 'The largest event-loop lag probe delay since the previous scrape, in seconds.',
    merge: 'max',
    // Reset per scrape, as prom-client does for its event-loop delay stats:
    // with two Prometheus servers scraping, each sees the max of its own share.
    collect: (gauge) => gauge.set(lag.takeMax()),
  })

  // One read of each source per scrape feeds several series. heapStats()
  // from bun:jsc would say more, but walks the heap (~1 ms); memoryUsage()
  // costs ~15 µs.
  registry.addCollector(() => {
    const cpu = process.cpuUsage()
    // Counters only go up: raise each to the process's own running total.
    cpuUser.inc(cpu.user / 1e6 - cpuUser.get())
    cpuSystem.inc(cpu.system / 1e6 - cpuSystem.get())
    cpuTotal.inc((cpu.user + cpu.system) / 1e6 - cpuTotal.get())
    const memory = process.memoryUsage()
    resident.set(memory.rss)
    heapSize.set(memory.heapTotal)
    heapUsed.set(memory.heapUsed)
    external.set(memory.external)
  })

  lag.start()
  return { stop: () => lag.stop() }
}
