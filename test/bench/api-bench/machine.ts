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

/** Load averages now, for lines printed during a run. */
export function loadNow(): string {
  return loadavg().map((l) => l.toFixed(2)).join(' ')
}
