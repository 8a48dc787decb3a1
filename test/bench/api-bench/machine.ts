/** What a benchmark's figures were measured on: printed first, copied into docs/benchmarks/. */
import { spawnSync } from 'bun'
import { dlopen } from 'bun:ffi'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'

export interface Machine {
  readonly cpus: number
  readonly cpuModel: string
  readonly memoryGb: number
  readonly bun: string
  readonly loadAverage: string
}

export function describeMachine(): Machine {
  const nproc = Number(spawnSync(['nproc']).stdout.toString().trim())
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8')
    } catch {
      return ''
    }
  }
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(read('/proc/cpuinfo'))?.[1]?.trim() ?? 'unknown'
  const memKb = Number(/^MemTotal:\s+(\d+)/m.exec(read('/proc/meminfo'))?.[1] ?? NaN)
  return {
    cpus: Number.isFinite(nproc) && nproc > 0 ? nproc : availableParallelism(),
    cpuModel,
    memoryGb: Math.round((memKb / 1024 / 1024) * 10) / 10,
    bun: Bun.version,
    loadAverage: loadavg().map((l) => l.toFixed(2)).join(' '),
  }
}

/**
 * The cost of the cheapest system call, `getppid` (glibc does not cache
 * it), called through `bun:ffi` in a loop: the best of 3 × 200,000 calls,
 * in µs. It tells machine classes apart where the CPU model does not: a
 * guest whose kernel isolates its page tables on every entry (`pti=on`)
 * or that a hypervisor runs without hardware paging pays about 1 µs where
 * an ordinary guest pays 0.1–0.3 µs, and the proxy makes about 15 system
 * calls a shadowed request (docs/benchmarks/README.md).
 */
export function systemCallUs(calls = 200_000): number | undefined {
  if (process.platform !== 'linux') return undefined
  let getppid: () => number
  try {
    getppid = dlopen('libc.so.6', { getppid: { args: [], returns: 'i32' } }).symbols.getppid
  } catch {
    return undefined
  }
  let best = Infinity
  for (let round = 0; round < 3; round++) {
    const started = performance.now()
    for (let i = 0; i < calls; i++) getppid()
    best = Math.min(best, ((performance.now() - started) * 1000) / calls)
  }
  return best
}

let measuredSystemCallUs: { us: number | undefined } | undefined

/**
 * This machine's system call cost, measured once per process: `bun run
 * bench` prints it in its header and the proxy benchmark in its own, and
 * a measure takes up to a second on a slow machine.
 */
export function machineSystemCallUs(): number | undefined {
  measuredSystemCallUs ??= { us: systemCallUs() }
  return measuredSystemCallUs.us
}

/** `1.09 µs per system call (getppid)`, or a word on why there is none. */
export function systemCallText(us: number | undefined): string {
  return us === undefined ? 'system call cost not measured (no getppid through bun:ffi)' : `${us.toFixed(2)} µs per system call (getppid)`
}

/** The header of a benchmark's output. */
export function machineLines(machine: Machine = describeMachine(), date = new Date(), callUs: number | undefined = machineSystemCallUs()): string[] {
  return [
    `date:    ${date.toISOString()}`,
    `machine: ${machine.cpus} CPU(s) (nproc), ${machine.cpuModel}, ${machine.memoryGb} GB memory`,
    `bun:     ${machine.bun}`,
    `kernel:  ${systemCallText(callUs)}`,
    `load:    ${machine.loadAverage} (1/5/15 min averages at start; other work shares this machine)`,
  ]
}

/**
 * Jiffies of the whole machine since boot (the first line of
 * `/proc/stat`; the benchmarks run on Linux and read `/proc` throughout):
 * busy (all but idle and iowait, steal included), stolen (`steal`: time
 * this guest had work to run and the hypervisor gave to other guests, a
 * noisy neighbour), and in all. The guest fields after steal are left
 * out: Linux counts them in user and nice already.
 */
export interface MachineTicks {
  readonly busy: number
  readonly steal: number
  readonly total: number
}

export function machineTicks(): MachineTicks {
  // user nice system idle iowait irq softirq steal
  const values = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
  const total = values.reduce((a, b) => a + b, 0)
  return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), steal: values[7] ?? 0, total }
}

/** Between two readings: the shares (0..1) of the machine's time that were busy and stolen. */
export function machineShares(before: MachineTicks, after: MachineTicks): { busy: number; steal: number } {
  const total = Math.max(1, after.total - before.total)
  return { busy: (after.busy - before.busy) / total, steal: (after.steal - before.steal) / total }
}

/** The steal share for a line printed during a run: `steal 1.4 %`. */
export function stealText(before: MachineTicks, after: MachineTicks): string {
  return `steal ${(machineShares(before, after).steal * 100).toFixed(1)} %`
}

/** Load averages now, for lines printed during a run. */
export function loadNow(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' ')
}
