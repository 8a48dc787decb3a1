/** What a benchmark's figures were measured on: printed first, copied into docs/benchmarks/. */
import { spawnSync } from 'bun'
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

export function machineLines(machine: Machine = describeMachine(), date = new Date()): string[] {
  return [
    `date:    ${date.toISOString()}`,
    `machine: ${machine.cpus} CPU(s) (nproc), ${machine.cpuModel}, ${machine.memoryGb} GB memory`,
    `bun:     ${machine.bun}`,
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
