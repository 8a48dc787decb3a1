import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { ConflictError, InvalidBodyError, NotFoundError } from '../../../src/errors/app-error.ts'
import { createGateStore, type GateStore } from '../../../src/store/gate-store.ts'
import { createInsertBatcher } from '../../../src/store/insert-batcher.ts'
import { createRequestStore, type RequestStore } from '../../../src/store/request-store.ts'
import type { CaptureInput, RequestSummary } from '../../../src/store/rows.ts'
import { BACKENDS, createTestDatabase, DATABASE_HOOK_TIMEOUT_MS, type TestDatabase } from '../../support/database.ts'
import { capture, MINUTE, newGate, rollupDrift } from './fixtures.ts'

describe('insert batcher (no database)', () => {
  test('groups concurrent calls up to maxSize and never puts one key twice in a batch', async () => {
    const batches: string[][] = []
    const batcher = createInsertBatcher<string, string>({
      maxSize: 8,
      maxWaitMs: 5,
      key: (s) => s,
      writeBatch: async (items) => {
        batches.push([...items])
        return items.map((value) => ({ ok: true as const, value: `batch:${value}` }))
      },
      single: async (item) => {
        batches.push([item])
        return `single:${item}`
      },
    })
    const items = Array.from({ length: 40 }, (_, i) => `k${i % 30}`)
    const results = await Promise.all(items.map((i) => batcher.add(i)))
    expect(results.map((r) => r.split(':')[1])).toEqual(items)
    expect(batches.flat().sort()).toEqual([...items].sort())
    for (const b of batches) {
      expect(b.length).toBeLessThanOrEqual(8)
      expect(new Set(b).size).toBe(b.length)
    }
    expect(batches.length).toBeLessThan(items.length / 2)
  })

  test('a failing batch falls back to one call per item', async () => {
    const batcher = createInsertBatcher<number, number>({
      maxSize: 32,
      maxWaitMs: 1,
      key: String,
      writeBatch: async () => {
        throw new Error('statement failed')
      },
      single: async (n) => {
        if (n === 3) throw new Error('bad item')
        return n * 2
      },
    })
    const settled = await Promise.allSettled([1, 2, 3, 4].map((n) => batcher.add(n)))
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message))).toEqual([
      2,
      4,
      'bad item',
      8,
    ])
  })
})

type Op = { gate: 'a' | 'b' | 'unknown'; capture: CaptureInput }
type Result = { created: boolean; summary: RequestSummary } | { error: string }

describe.each(BACKENDS)('grouped request inserts on %s', (kind) => {
  let t: TestDatabase
  let gates: GateStore
  let batched: RequestStore
  let sequential: RequestStore

  beforeAll(async () => {
    t = await createTestDatabase(kind)
    gates = createGateStore(t.db.sql)
    batched = createRequestStore(t.db.sql, { maxBatch: 32, maxWaitMs: 5 })
    sequential = createRequestStore(t.db.sql, { maxBatch: 1 })
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterAll(() => t?.drop())

  /**
   * 200 operations: 160 new captures into gate a over several minutes and
   * methods, 12 ids inserted twice (one of them the second time in upper
   * case), 8 inserts of an id stored under gate b, 8 into an unknown gate.
   * `idMap` renames ids so that the same plan can run twice in one database.
   */
  function plan(conflictId: string, base: Date): Op[] {
    const ops: Op[] = []
    const methods = ['GET', 'POST', 'PUT']
    for (let i = 0; i < 160; i++) {
      ops.push({
        gate: 'a',
        capture: capture({
          method: methods[i % 3]!,
          created_at: new Date(base.getTime() + (i % 4) * MINUTE + i),
          has_diff: i % 5 === 0,
        }),
      })
    }
    for (let i = 0; i < 12; i++) {
      const c = capture({ method: 'DELETE', created_at: new Date(base.getTime() + i), has_diff: i % 2 === 0 })
      ops.push({ gate: 'a', capture: c })
      ops.push({ gate: 'a', capture: i === 0 ? { ...c, id: c.id.toUpperCase() } : c })
    }
    for (let i = 0; i < 8; i++) ops.push({ gate: 'a', capture: capture({ id: conflictId, created_at: base }) })
    for (let i = 0; i < 8; i++) ops.push({ gate: 'unknown', capture: capture({ created_at: base }) })
    // A fixed interleaving, so that duplicates and bad rows land mid-batch.
    return ops.map((op, i) => ({ op, k: (i * 7919) % 211 })).sort((x, y) => x.k - y.k).map((x) => x.op)
  }

  async function run(store: RequestStore, ops: Op[], ids: { a: string; b: string }, parallel: boolean) {
    const unknown = crypto.randomUUID()
    const one = async (op: Op): Promise<Result> => {
      const gateId = op.gate === 'unknown' ? unknown : ids[op.gate]
      try {
        return await store.insert(gateId, op.capture)
      } catch (error) {
        return { error: (error as Error).constructor.name }
      }
    }
    if (parallel) return Promise.all(ops.map(one))
    const results: Result[] = []
    for (const op of ops) results.push(await one(op))
    return results
  }

  /** The same plan with fresh ids (ids are unique across gates). */
  function renamed(ops: Op[], conflictId: string, newConflictId: string): Op[] {
    const names = new Map<string, string>([[conflictId, newConflictId]])
    const rename = (id: string) => {
      const key = id.toLowerCase()
      if (!names.has(key)) names.set(key, crypto.randomUUID())
      const name = names.get(key)!
      return id === key ? name : name.toUpperCase()
    }
    return ops.map((op) => ({ ...op, capture: { ...op.capture, id: rename(op.capture.id) } }))
  }

  const normalize = (results: Result[]) =>
    results.map((r) => ('error' in r ? r : { created: r.created, summary: { ...r.summary, id: undefined } }))

  const sums = async (gateId: string) =>
    t.db.sql`
      SELECT bucket, method, sum(request_count)::int AS n, sum(diff_count)::int AS d
      FROM request_rollups WHERE gate_id = ${gateId} GROUP BY 1, 2 ORDER BY 1, 2`.then((rows) => [...rows])

  test('200 parallel inserts give what sequential inserts give, counts exact', async () => {
    const base = new Date(Date.now() - 10 * MINUTE)
    const gp = { a: await newGate(gates), b: await newGate(gates) }
    const gs = { a: await newGate(gates), b: await newGate(gates) }
    const conflictP = crypto.randomUUID()
    const conflictS = crypto.randomUUID()
    await sequential.insert(gp.b, capture({ id: conflictP, created_at: base }))
    await sequential.insert(gs.b, capture({ id: conflictS, created_at: base }))

    const ops = plan(conflictP, base)
    expect(ops.length).toBe(200)
    const parallel = await run(batched, ops, gp, true)
    const reference = await run(sequential, renamed(ops, conflictP, conflictS), gs, false)

    // Per caller: the sequential outcome (a duplicate's first call in plan order creates).
    expect(normalize(parallel)).toEqual(normalize(reference))
    expect(parallel.filter((r) => 'created' in r && r.created).length).toBe(172)
    expect(parallel.filter((r) => 'created' in r && !r.created).length).toBe(12)
    expect(parallel.filter((r) => 'error' in r && r.error === ConflictError.name).length).toBe(8)
    expect(parallel.filter((r) => 'error' in r && r.error === NotFoundError.name).length).toBe(8)
    // A duplicate that did not create returns the stored summary.
    parallel.forEach((r, i) => {
      if ('created' in r) expect(r.summary.id.toLowerCase()).toBe(ops[i]!.capture.id.toLowerCase())
    })

    const [count] = await t.db.sql`SELECT count(*)::int AS n FROM requests WHERE gate_id = ${gp.a}`
    expect(count!.n).toBe(172)
    const [payloads] = await t.db.sql`
      SELECT count(*)::int AS n FROM request_payloads p JOIN requests r ON r.id = p.request_id WHERE r.gate_id = ${gp.a}`
    expect(payloads!.n).toBe(172)
    expect(await rollupDrift(t.db.sql, gp.a)).toEqual([])
    expect(await rollupDrift(t.db.sql, gp.b)).toEqual([])
    expect(await sums(gp.a)).toEqual(await sums(gs.a))
    const [counter] = await t.db.sql`
      SELECT sum(request_count)::int AS n, max(last_active) AS last FROM gate_counters WHERE gate_id = ${gp.a}`
    const [reference_counter] = await t.db.sql`
      SELECT sum(request_count)::int AS n, max(last_active) AS last FROM gate_counters WHERE gate_id = ${gs.a}`
    expect(counter).toEqual(reference_counter!)
  })

  test('a bad timestamp fails only its own caller', async () => {
    const gateId = await newGate(gates)
    const good = Array.from({ length: 20 }, () => capture())
    const bad = { ...capture(), created_at: 'not a date' }
    const settled = await Promise.allSettled([...good.slice(0, 10), bad, ...good.slice(10)].map((c) => batched.insert(gateId, c)))
    expect(settled[10]!.status).toBe('rejected')
    expect((settled[10] as PromiseRejectedResult).reason).toBeInstanceOf(InvalidBodyError)
    expect(settled.filter((s) => s.status === 'fulfilled' && s.value.created).length).toBe(20)
    expect(await rollupDrift(t.db.sql, gateId)).toEqual([])
  })
})
