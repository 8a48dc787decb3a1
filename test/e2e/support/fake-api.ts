import type { FakeData, FakeGate, FakeRequest } from './fake-data.ts'
import { fakeData } from './fake-data.ts'
import { endpointRows, fieldRows, insightOf, signatureRows } from './fake-insights.ts'
import { advanceJob, fakeControls, previewOf, suggestionRows, withNoise } from './fake-noise.ts'
import type { FakeControls, FakeJob } from './fake-noise.ts'

/**
 * A minimal stand-in for the management API, shaped by docs/reference/api.md:
 * bearer auth, `{data}` wrapping, `pagination`, RFC 7807 problems, CORS for the
 * hub's origin, the listGates / listRequests filters, and the endpoints,
 * signatures and fields reads (fake-insights.ts), and the noise classification,
 * suggestions, preview and re-diff jobs (fake-noise.ts). Only for the hub's
 * smoke test and screenshots; the real-API e2e replaces it.
 */
export interface FakeApi {
  readonly url: string
  readonly key: string
  readonly data: FakeData
  /** Every request seen, e.g. to assert what the hub sent. */
  readonly seen: { method: string; path: string; auth: string | null }[]
  /** How the next previews and jobs behave (fake-noise.ts). */
  readonly controls: FakeControls
  /** Re-diff jobs by id. */
  readonly jobs: Map<string, FakeJob & { gateId: string; queue: string[] }>
  stop(): Promise<void>
}

export interface FakeApiOptions {
  readonly key?: string
  /** Origin allowed by CORS (the hub's). */
  readonly allowOrigin?: string
}

const PROBLEM = { 'Content-Type': 'application/problem+json' }

export function startFakeApi(options: FakeApiOptions = {}): FakeApi {
  const key = options.key ?? 'fake-api-key-0123456789'
  const data = fakeData()
  const seen: FakeApi['seen'] = []
  const controls = fakeControls()
  const jobs: FakeApi['jobs'] = new Map()
  const cors = (origin: string | null): Record<string, string> => {
    const allowed = options.allowOrigin ?? origin
    return allowed && origin === allowed
      ? {
          'Access-Control-Allow-Origin': allowed,
          'Access-Control-Allow-Methods': 'GET, POST, PATCH, DELETE, OPTIONS',
          'Access-Control-Allow-Headers': 'Content-Type, Authorization',
          'Access-Control-Max-Age': '86400',
          Vary: 'Origin',
        }
      : {}
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      const origin = req.headers.get('origin')
      const extra = cors(origin)
      seen.push({ method: req.method, path: url.pathname + url.search, auth: req.headers.get('authorization') })
      if (req.method === 'OPTIONS') return new Response(null, { status: 204, headers: extra })
      const json = (body: unknown, status = 200) => Response.json(body, { status, headers: extra })
      const problem = (status: number, title: string, detail?: string) =>
        new Response(JSON.stringify({ type: `/errors/${title.toLowerCase().replace(/ /g, '-')}`, title, status, detail, instance: url.pathname }), {
          status,
          headers: { ...PROBLEM, ...extra },
        })
      if (req.headers.get('authorization') !== `Bearer ${key}`) {
        return problem(401, 'Unauthorized', 'a valid "Authorization: Bearer <key>" header is required')
      }
      const parts = url.pathname.split('/').filter(Boolean)
      const q = url.searchParams
      if (url.pathname === '/stats' && req.method === 'GET') {
        const total = data.gates.reduce((n, g) => n + g.stats.request_count_24h, 0)
        const diffs = data.gates.reduce((n, g) => n + g.stats.diff_count_24h, 0)
        return json({ data: { total_gates: data.gates.length, total_requests_24h: total, total_diff_rate: total ? diffs / total : 0 } })
      }
      if (url.pathname === '/config' && req.method === 'GET') return json({ data: { retention: data.retention } })
      if (parts[0] !== 'gates') return problem(404, 'Not Found', `no route ${url.pathname}`)

      if (parts.length === 1) {
        if (req.method === 'GET') {
          let list = data.gates.filter(
            (g) =>
              g.name.includes(q.get('name') ?? '') &&
              g.live_url.includes(q.get('live_url') ?? '') &&
              g.shadow_url.includes(q.get('shadow_url') ?? ''),
          )
          const sort = (q.get('sort') ?? 'created_at') as keyof FakeGate
          list = sortBy(list, (g) => String(g[sort]), q.get('order') ?? 'desc')
          return json(paged(list, q))
        }
        if (req.method === 'POST') {
          const body = (await req.json()) as Partial<FakeGate>
          for (const f of ['name', 'live_url', 'shadow_url'] as const) {
            if (typeof body[f] !== 'string' || body[f] === '') return problem(400, 'Invalid Request Body', `${f}: is required`)
          }
          if (data.gates.some((g) => g.name === body.name)) return problem(409, 'Conflict', `a gate named "${body.name}" already exists`)
          const g: FakeGate = {
            id: crypto.randomUUID(),
            name: body.name!,
            live_url: body.live_url!,
            shadow_url: body.shadow_url!,
            diff_config: { ignored_fields: [], included_fields: [], float_tolerance: 0, sort_arrays: false },
            redacted_fields: [],
            retention: '',
            endpoints: [],
            created_at: new Date().toISOString(),
            stats: { request_count_24h: 0, diff_count_24h: 0, diff_rate: 0, last_active: null },
          }
          data.gates.push(g)
          data.requests.set(g.id, [])
          return json({ data: g }, 201)
        }
        return problem(405, 'Method Not Allowed')
      }

      const g = data.gates.find((x) => x.id === parts[1])
      if (!g) return problem(404, 'Not Found', `no gate with id ${parts[1]}`)
      if (parts.length === 2) {
        if (req.method === 'GET') return json({ data: g })
        if (req.method === 'DELETE') {
          data.gates.splice(data.gates.indexOf(g), 1)
          return new Response(null, { status: 204, headers: extra })
        }
        if (req.method === 'PATCH') {
          const body = (await req.json()) as Record<string, unknown>
          if (body.retention !== undefined && body.retention !== null && !/^\d+h$/.test(String(body.retention))) {
            return problem(400, 'Invalid Request Body', 'retention: must be a duration of at least the global floor 720h')
          }
          if (body.diff_config) g.diff_config = body.diff_config as FakeGate['diff_config']
          if (body.redacted_fields) g.redacted_fields = body.redacted_fields as string[]
          if ('retention' in body) g.retention = (body.retention as string | null) ?? ''
          if (body.endpoints) g.endpoints = body.endpoints as string[]
          return json({ data: g })
        }
        return problem(405, 'Method Not Allowed')
      }
      const all = data.requests.get(g.id) ?? []
      const insights = { endpoints: endpointRows, signatures: signatureRows, fields: (list: typeof all, q: URLSearchParams) => fieldRows(list, q).map(withNoise) } as const
      if (parts.length === 3 && req.method === 'GET' && parts[2] === 'suggestions') {
        return json(paged(suggestionRows(fieldRows(all, q), g), q))
      }
      if (parts.length === 4 && req.method === 'POST' && parts[2] === 'diff-config' && parts[3] === 'preview') {
        const body = (await req.json().catch(() => ({}))) as { diff_config?: FakeGate['diff_config']; from?: string; limit?: number }
        const d = body.diff_config
        if (!d || !Array.isArray(d.ignored_fields) || !Array.isArray(d.included_fields) || typeof d.float_tolerance !== 'number' || typeof d.sort_arrays !== 'boolean') {
          return problem(400, 'Invalid Request Body', 'diff_config: all four fields are required')
        }
        if (controls.previewDelayMs > 0) await Bun.sleep(controls.previewDelayMs)
        if (controls.previewConflicts > 0) {
          controls.previewConflicts--
          return problem(409, 'Conflict', 'a preview of this gate is already running; try again shortly')
        }
        if (controls.previewFails) return problem(503, 'Service Unavailable', 'the database is not reachable')
        const from = body.from ? Date.parse(body.from) : Date.now() - 86_400_000
        try {
          return json({ data: previewOf(all, g, d, from, body.limit ?? 1000) })
        } catch (error) {
          return problem(400, 'Invalid Request Body', `diff_config: ${error instanceof Error ? error.message : String(error)}`)
        }
      }
      if (parts.length === 3 && req.method === 'POST' && parts[2] === 'rediff') {
        const active = [...jobs.values()].find((j) => j.gateId === g.id && (j.state === 'queued' || j.state === 'running'))
        if (active) return problem(409, 'Conflict', `a job of this gate is already running: ${active.id}`)
        const body = (await req.json().catch(() => ({}))) as { from?: string }
        const from = body.from ? Date.parse(body.from) : Date.now() - 86_400_000
        const queue = all.filter((r) => Date.parse(r.created_at) >= from).map((r) => r.id)
        const job = { id: crypto.randomUUID(), gateId: g.id, queue, kind: 'rediff' as const, state: 'queued' as const, done: 0, total: queue.length, started_at: null, finished_at: null, error: null }
        jobs.set(job.id, job)
        return json({ data: publicJob(job) }, 202)
      }
      if (parts.length === 4 && parts[2] === 'jobs') {
        const job = jobs.get(parts[3]!)
        if (!job || job.gateId !== g.id) return problem(404, 'Not Found', `no job with id ${parts[3]}`)
        if (req.method === 'GET') {
          advanceJob(job, data, g, job.queue, controls.jobStep)
          return json({ data: publicJob(job) })
        }
        if (req.method === 'DELETE') {
          if (job.state === 'queued' || job.state === 'running') {
            job.state = 'cancelled'
            job.finished_at = new Date().toISOString()
          }
          return json({ data: publicJob(job) })
        }
        return problem(405, 'Method Not Allowed')
      }
      if (parts.length === 3 && req.method === 'GET' && parts[2]! in insights) {
        const rows = insights[parts[2] as keyof typeof insights](all, q)
        const sort = q.get('sort') ?? { endpoints: 'diff_rate', signatures: 'count', fields: 'count' }[parts[2] as keyof typeof insights]
        const sorted = [...rows].sort((a, b) => compare(a[sort], b[sort]) || compare(a.template, b.template))
        return json(paged(q.get('order') === 'asc' ? sorted : sorted.reverse(), q))
      }
      if (parts[2] !== 'requests') return problem(404, 'Not Found')
      if (parts.length === 3 && req.method === 'GET') {
        const methods = q.get('method')?.split(',')
        const path = q.get('path')
        const pathRe = path ? new RegExp(path.split('*').map(escapeRe).join('.*')) : undefined
        const hasDiff = q.get('has_diff')
        const signature = q.get('signature')
        const template = q.get('template')
        const from = q.get('from') ? Date.parse(q.get('from')!) : -Infinity
        const to = q.get('to') ? Date.parse(q.get('to')!) : Infinity
        let list = all.filter((r) => {
          const t = Date.parse(r.created_at)
          return (
            (!methods || methods.includes(r.method)) &&
            (!pathRe || pathRe.test(r.path)) &&
            (hasDiff === null || (r.diff.content.length > 0) === (hasDiff === 'true')) &&
            (signature === null || insightOf(r).signature?.id === signature) &&
            (template === null || insightOf(r).template === template) &&
            t >= from &&
            t <= to
          )
        })
        const sort = (q.get('sort') ?? 'created_at') as 'created_at' | 'method' | 'path'
        list = sortBy(list, (r) => r[sort], q.get('order') ?? 'desc')
        return json(paged(list.map(summary), q))
      }
      if (parts.length === 4 && req.method === 'GET') {
        const r = all.find((x) => x.id === parts[3])
        if (!r) return problem(404, 'Not Found', `no request with id ${parts[3]}`)
        return json({ data: { ...r, ...insightFields(r) } })
      }
      return problem(404, 'Not Found')
    },
  })
  return {
    url: `http://127.0.0.1:${server.port}`,
    key,
    data,
    seen,
    controls,
    jobs,
    async stop() {
      await server.stop(true)
    },
  }
}

function publicJob({ gateId: _gate, queue: _queue, ...job }: FakeJob & { gateId: string; queue: string[] }): FakeJob {
  return job
}

function summary(r: FakeRequest) {
  return {
    id: r.id,
    method: r.method,
    path: r.path,
    ...(r.raw_query ? { raw_query: r.raw_query } : {}),
    created_at: r.created_at,
    live_response: { status_code: r.live_response.status_code, latency_ms: r.live_response.latency_ms },
    shadow_response: { status_code: r.shadow_response.status_code, latency_ms: r.shadow_response.latency_ms },
    has_diff: r.diff.content.length > 0,
    ...insightFields(r),
  }
}

function insightFields(r: FakeRequest) {
  const { template, signature } = insightOf(r)
  return { template, signature_id: signature?.id ?? null }
}

/** Numbers by value, anything else as text. */
function compare(a: unknown, b: unknown): number {
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b))
}

function paged<T>(list: T[], q: URLSearchParams) {
  const limit = Number(q.get('limit') ?? 50)
  const offset = Number(q.get('offset') ?? 0)
  const data = list.slice(offset, offset + limit)
  return { data, pagination: { limit, offset, total: list.length, has_more: offset + data.length < list.length } }
}

function sortBy<T>(list: T[], key: (x: T) => string, order: string): T[] {
  const sorted = [...list].sort((a, b) => key(a).localeCompare(key(b)))
  return order === 'asc' ? sorted : sorted.reverse()
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
