import { describe, expect, test } from 'bun:test'
import { IngestBacklog } from '../../../src/api/ingest-backlog.ts'
import { UnavailableError } from '../../../src/errors/app-error.ts'

describe('IngestBacklog', () => {
  test('admits up to its limit, refuses beyond it, and has room again as work settles', async () => {
    const backlog = new IngestBacklog(2)
    const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()]
    const running = gates.map((gate) => backlog.admit(() => gate.promise))
    expect(backlog.size).toBe(2)
    const refused = await backlog.admit(async () => 'never').catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(UnavailableError)
    expect(refused).toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 })
    gates[0]!.resolve()
    gates[1]!.reject(new Error('insert failed'))
    await Promise.allSettled(running)
    expect(backlog.size).toBe(0)
    expect(await backlog.admit(async () => 'stored')).toBe('stored')
  })
})
