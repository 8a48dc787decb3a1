import { describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import { createTestDatabase } from '../../support/database.ts'
import { backendCpuBetween, sampleBackends, type BackendsSample } from './postgres-cpu.ts'

const sample = (at: number, backends: [number, number, number][]): BackendsSample => ({
  at,
  backends: new Map(backends.map(([pid, cpu, started]) => [pid, { cpu, started }])),
})

describe("PostgreSQL backends' CPU over a run", () => {
  test('a backend in both samples counts its difference; one started during the run counts whole', () => {
    const before = sample(10_000, [[1, 5, 0], [2, 100, 0]])
    const after = sample(15_000, [[1, 6.5, 0], [2, 101, 0], [3, 0.7, 12_000]])
    expect(backendCpuBetween(before, after)).toBeCloseTo(1.5 + 1 + 0.7)
  })

  test("a backend that was older than the run but missing from its first sample (the asking connection) counts nothing", () => {
    // Backend 9 seeded for minutes (600 s of CPU), was the connection that took the first sample, and is listed in the second.
    const before = sample(10_000, [[1, 5, 0]])
    const after = sample(15_000, [[1, 6, 0], [9, 600, 1_000]])
    expect(backendCpuBetween(before, after)).toBeCloseTo(1)
  })

  test('a backend whose CPU could not be read is left out', () => {
    const before = sample(10_000, [[1, NaN, 0], [2, 1, 0]])
    const after = sample(15_000, [[1, 3, 0], [2, NaN, 0], [4, NaN, 12_000]])
    expect(backendCpuBetween(before, after)).toBe(0)
  })
})

describe('sampling a real PostgreSQL', () => {
  test("lists the database's other backends with their start and CPU, and counts a busy one's work", async () => {
    const database = await createTestDatabase('postgres', { migrate: false })
    const other = postgres(database.url, { max: 1, onnotice: () => {} })
    try {
      const [{ pid }] = await other<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`
      const before = await sampleBackends(database.db.sql)
      expect(before.backends.get(pid)?.started).toBeLessThanOrEqual(before.at)
      expect(Number.isFinite(before.backends.get(pid)!.cpu)).toBe(true)
      // About a second of CPU on that backend.
      await other`SELECT count(*) FROM generate_series(1, 3000000) AS s WHERE md5(s::text) LIKE 'a%'`
      const after = await sampleBackends(database.db.sql)
      expect(after.at).toBeGreaterThan(before.at)
      expect(backendCpuBetween(before, after)).toBeGreaterThan(0.1)
    } finally {
      await other.end()
      await database.drop()
    }
  }, 60_000)
})
