import { describe, expect, test } from 'bun:test'
import { Elysia } from 'elysia'
import postgres from 'postgres'
import { CaptureRejectedError } from '../../../../src/api/capture-rejected.ts'
import { problemHandler } from '../../../../src/api/plugins/problem-handler.ts'
import { RouteTable } from '../../../../src/api/route-table.ts'
import { createLogger } from '../../../../src/log/index.ts'

/** A database error as postgres.js raises it. */
function databaseError(code: string, message: string): Error {
  return Object.assign(Object.create(postgres.PostgresError.prototype) as Error, { name: 'PostgresError', code, message })
}

/** The problem handler in front of routes that throw what ingest and the stores throw. */
function app(thrown: () => unknown) {
  const lines: string[] = []
  const logger = createLogger({ level: 'debug', format: 'json', write: (line) => void lines.push(line) })
  const handler = () => {
    throw thrown()
  }
  const built = new Elysia().use(problemHandler({ logger, routes: new RouteTable() })).post('/x', handler).get('/x', handler)
  return { lines, call: (method: string) => built.handle(new Request('http://api.test/x', { method })) }
}

describe('problemHandler', () => {
  test('a capture\'s own failure is a 500 with "capture_rejected": true, logged with its cause', async () => {
    const { lines, call } = app(() => new CaptureRejectedError(new TypeError('the diff walked into something odd')))
    const res = await call('POST')
    expect(res.status).toBe(500)
    expect(res.headers.get('content-type')).toBe('application/problem+json')
    const problem = (await res.json()) as Record<string, unknown>
    expect(problem).toMatchObject({ type: '/errors/internal', status: 500, capture_rejected: true })
    expect(JSON.stringify(problem)).not.toContain('odd')
    expect(lines.some((line) => line.includes('unexpected error') && line.includes('TypeError: the diff walked into something odd'))).toBe(true)
  })

  test('any other unexpected error is a 500 without the member', async () => {
    const res = await app(() => new Error('connection terminated')).call('POST')
    expect(res.status).toBe(500)
    expect('capture_rejected' in ((await res.json()) as object)).toBe(false)
  })

  test.each([
    ['POST', '/errors/invalid-request-body', 'the request body cannot be stored: a number is out of the range the database can store'],
    ['GET', '/errors/invalid-parameter', 'the request cannot be answered: a number is out of the range the database can store'],
  ])('a data exception of the database (class 22) on %s is a 400 that does not repeat the value', async (method, type, detail) => {
    const res = await app(() => databaseError('22003', 'value "123456789012345678901" is out of range for type bigint')).call(method)
    expect(res.status).toBe(400)
    const problem = (await res.json()) as { type: string; detail: string }
    expect(problem).toMatchObject({ type, detail })
  })

  test('a database error of another class stays a 500', async () => {
    expect((await app(() => databaseError('57014', 'canceling statement due to statement timeout')).call('GET')).status).toBe(500)
  })
})
