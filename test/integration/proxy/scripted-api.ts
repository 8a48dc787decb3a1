/**
 * A hand-written HTTP server playing the API for the proxy in API mode, for
 * faults the real API cannot be told to make on cue: it serves one gate
 * (`GET /gates/{id}`) and answers each `POST /gates/{id}/requests` as the
 * test's `answer` says, recording what it was sent.
 */
import { json } from '../../support/upstreams.ts'

/** How to answer one report: a Response, or `hang` to never answer. */
export type ScriptedAnswer = Response | 'hang'

export interface ReceivedReport {
  /** The createRequest body, parsed. */
  readonly body: {
    readonly id: string
    readonly headers: Record<string, string[]>
    readonly [field: string]: unknown
  }
  readonly headers: Headers
}

export interface ScriptedApi {
  readonly url: string
  readonly gateId: string
  /** Every report received, answered or not. */
  readonly reports: ReceivedReport[]
  /** How reports are answered from now on. @default 201 */
  answer: (report: ReceivedReport) => ScriptedAnswer | Promise<ScriptedAnswer>
  stop(): void
}

/** An RFC 7807 answer as the API gives it. */
export function problem(status: number, type: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ type, title: type, status, detail: `scripted ${status}`, ...extra }), {
    status,
    headers: { 'content-type': 'application/problem+json', ...headers },
  })
}

export function startScriptedApi(gate: { liveUrl: string; shadowUrl: string }): ScriptedApi {
  const gateId = crypto.randomUUID()
  /** Settled at stop(), so that a hung answer does not outlive the test. */
  const { promise: stopped, resolve: stop } = Promise.withResolvers<Response>()
  const api: ScriptedApi = {
    url: '',
    gateId,
    reports: [],
    answer: () => json({ data: {} }, { status: 201 }),
    stop() {
      stop(new Response(null, { status: 503 }))
      server.stop(true)
    },
  }
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const { pathname } = new URL(request.url)
      if (request.method === 'GET' && pathname === `/gates/${gateId}`) {
        return json({ data: { id: gateId, name: 'scripted', live_url: gate.liveUrl, shadow_url: gate.shadowUrl, redacted_fields: [] } })
      }
      if (request.method !== 'POST' || pathname !== `/gates/${gateId}/requests`) return problem(404, '/errors/not-found')
      const report: ReceivedReport = { body: (await request.json()) as ReceivedReport['body'], headers: request.headers }
      api.reports.push(report)
      const answer = await api.answer(report)
      return answer === 'hang' ? stopped : answer
    },
  })
  return Object.assign(api, { url: `http://127.0.0.1:${server.port}` })
}
