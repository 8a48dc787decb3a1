import { describe, expect, test } from 'bun:test'
import { machineLines, machineShares, machineSystemCallUs, machineTicks, stealText, systemCallText, systemCallUs, type MachineTicks } from './machine.ts'

describe('the machine figures printed beside benchmark runs', () => {
  test('shares between two readings: busy and stolen time out of all', () => {
    const before: MachineTicks = { busy: 1_000, steal: 10, total: 4_000 }
    const after: MachineTicks = { busy: 1_150, steal: 13, total: 4_200 }
    expect(machineShares(before, after)).toEqual({ busy: 0.75, steal: 0.015 })
    expect(stealText(before, after)).toBe('steal 1.5 %')
  })

  test('two readings in the same tick divide by one tick, not by zero', () => {
    const same: MachineTicks = { busy: 5, steal: 1, total: 9 }
    expect(machineShares(same, same)).toEqual({ busy: 0, steal: 0 })
  })

  test('this machine\'s /proc/stat: stolen time is within busy time, busy within all, and none goes back', () => {
    const first = machineTicks()
    const second = machineTicks()
    for (const ticks of [first, second]) {
      expect(ticks.total).toBeGreaterThan(0)
      expect(ticks.steal).toBeGreaterThanOrEqual(0)
      expect(ticks.steal).toBeLessThanOrEqual(ticks.busy)
      expect(ticks.busy).toBeLessThanOrEqual(ticks.total)
    }
    expect(second.total).toBeGreaterThanOrEqual(first.total)
    expect(second.steal).toBeGreaterThanOrEqual(first.steal)
  })
})

describe('the system call cost printed in the header', () => {
  test.if(process.platform === 'linux')('measured on Linux: a positive figure, and the same in the text', () => {
    const us = systemCallUs(10_000)
    expect(us).toBeGreaterThan(0)
    expect(us!).toBeLessThan(1_000)
    expect(systemCallText(us)).toBe(`${us!.toFixed(2)} µs per system call (getppid)`)
  })

  test.if(process.platform === 'linux')('measured once per process: the header and the proxy benchmark print the same figure', () => {
    const first = machineSystemCallUs()
    expect(first).toBeGreaterThan(0)
    expect(machineSystemCallUs()).toBe(first!)
  })

  test('where it could not be measured, the text says so', () => {
    expect(systemCallText(undefined)).toBe('system call cost not measured (no getppid through bun:ffi)')
  })

  test('the header gives it after the Bun version and before the load', () => {
    const lines = machineLines({ cpus: 2, cpuModel: 'X', memoryGb: 1, bun: '1.0', loadAverage: '0 0 0' }, new Date(0), 1.2345)
    expect(lines[3]).toBe('kernel:  1.23 µs per system call (getppid)')
    expect(lines[4]).toStartWith('load:')
  })
})
