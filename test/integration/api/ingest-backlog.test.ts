import { describe, expect, test } from 'bun:test'
import { CAPTURES_PER_CONNECTION } from '../../../src/api/ingest-backlog.ts'
import { startTestApi } from '../../support/api-server.ts'
import { captureBody } from '../../support/captures.ts'
import { BACKENDS, DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

/** Polls `done` every 20 ms, for at most `ms`. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms
  while (!done() && Date.now() < deadline) await Bun.sleep(20)
}

describe.each(BACKENDS)('createRequest under a stalled database on %s', (backend) => {
  test('captures beyond the backlog bound are refused with 503 and Retry-After, the ones admitted are stored', async () => {
    // One connection: the bound is one insert group.
    const t = await startTestApi(backend, { SVC_APP_DATABASE_MAX_CONNS: '1', SVC_APP_DATABASE_MIN_CONNS: '0' })
    const bound = CAPTURES_PER_CONNECTION
    const extra = 8
    try {
      const gate = ((await (await t.call('POST', '/gates', { name: 'slow', live_url: 'http://l:1', shadow_url: 'http://s:1' })).json()) as { data: { id: string } }).data.id
      expect((await t.call('POST', `/gates/${gate}/requests`, captureBody())).status).toBe(201)

      // Another session takes the table: every insert waits for it.
      const held = await t.database.db.sql.reserve()
      await held`BEGIN`
      await held`LOCK TABLE requests IN ACCESS EXCLUSIVE MODE`
      const answers: Response[] = []
      const sent = Array.from({ length: bound + extra }, () =>
        t.call('POST', `/gates/${gate}/requests`, captureBody()).then((res) => void answers.push(res)),
      )
      try {
        await until(() => answers.length >= extra, 30_000)
        expect(answers.length).toBe(extra)
        expect(t.api.context.ingestBacklog.size).toBe(bound)
        for (const res of answers) {
          expect(res.status).toBe(503)
          expect(res.headers.get('retry-after')).toBe('1')
          expect(res.headers.get('content-type')).toContain('application/problem+json')
          expect(await res.json()).toMatchObject({ type: '/errors/unavailable', status: 503 })
        }
      } finally {
        await held`ROLLBACK`
        held.release()
      }
      await Promise.all(sent)
      expect(answers.slice(extra).map((res) => res.status)).toEqual(Array(bound).fill(201))
      const list = (await (await t.call('GET', `/gates/${gate}/requests?limit=1`)).json()) as { pagination: { total: number } }
      expect(list.pagination.total).toBe(bound + 1)
      expect(t.api.context.ingestBacklog.size).toBe(0)
    } finally {
      await t.stop()
    }
  }, DATABASE_HOOK_TIMEOUT_MS)
})

test('the OpenAPI document lists 503 for createRequest', async () => {
  const t = await startTestApi('pglite')
  try {
    const doc = (await (await fetch(t.url + '/swagger/json')).json()) as {
      paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, unknown> }> }>>
    }
    const create = Object.values(doc.paths).flatMap((item) => Object.values(item)).find((op) => op.operationId === 'createRequest')!
    expect(Object.keys(create.responses['503']!.content!)).toEqual(['application/problem+json'])
  } finally {
    await t.stop()
  }
}, DATABASE_HOOK_TIMEOUT_MS)
