/**
 * A bounded HTTP/1.1 load generator on raw keep-alive sockets, run as a
 * child process of the benchmark (`bun run load-generator.ts <plan.json>`)
 * so that it never shares the API's event loop or the bench's. It prints
 * one JSON line, a LoadReport, on stdout.
 *
 * - `closed`: every connection sends its next request as soon as the last
 *   answer is in (what wrk does): the maximum sustained rate.
 * - `rate`: an open loop at a fixed rate. Request k is due at
 *   start + k / rate; it goes out on the first idle connection, and its
 *   latency is counted from when it was due, so queueing behind a slow
 *   server shows in the percentiles (no coordinated omission). At most
 *   `maxBacklog` due requests wait; beyond that they are counted as
 *   dropped. When the time is up, the waiting ones are still sent (within
 *   10 s), and the run's length is until the last answer.
 *
 * Raw sockets rather than fetch: pre-serialised requests cost almost no
 * CPU, which matters on a two-core machine shared with the API, and fetch
 * keeps at most 64 idle sockets (docs/proxy.md "HTTP client").
 */
import { readFileSync, writeFileSync } from 'node:fs'
import type { Socket } from 'bun'

export interface LoadPlan {
  readonly mode: 'closed' | 'rate'
  readonly host: string
  readonly port: number
  readonly path: string
  /** @default POST */
  readonly method?: string
  readonly headers: Record<string, string>
  /** Request bodies, sent in turn; an empty one is sent without Content-Length. */
  readonly bodies: string[]
  readonly seconds: number
  readonly connections: number
  /** Requests per second (`rate` mode). */
  readonly rate?: number
  /** Due requests that may wait for a connection (`rate` mode). @default rate */
  readonly maxBacklog?: number
  /**
   * Where to write every answered request as a line `<due> <latency>`, in
   * ms, due from the start of the run and in the order answered: when
   * the slow ones came, not only how many (`proxy-bench/tail.ts`).
   */
  readonly latenciesFile?: string
}

export interface LoadReport {
  readonly sent: number
  readonly completed: number
  /** Answers by status code. */
  readonly statuses: Record<string, number>
  readonly socketErrors: number
  readonly dropped: number
  readonly seconds: number
  readonly p50Ms: number
  readonly p90Ms: number
  readonly p99Ms: number
  readonly maxMs: number
}

interface Connection {
  socket: Socket<undefined> | undefined
  busy: boolean
  dueAt: number
  buffer: Buffer
  pending: Buffer | undefined
}

export async function runLoad(plan: LoadPlan): Promise<LoadReport> {
  const requests = plan.bodies.map((body) => {
    const head = [`${plan.method ?? 'POST'} ${plan.path} HTTP/1.1`, `Host: ${plan.host}:${plan.port}`]
    if (body !== '') head.push(`Content-Length: ${Buffer.byteLength(body)}`)
    for (const [name, value] of Object.entries(plan.headers)) head.push(`${name}: ${value}`)
    return Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`)
  })
  const latencies: number[] = []
  const dueAts: number[] = []
  const statuses: Record<string, number> = {}
  let sent = 0
  let socketErrors = 0
  let dropped = 0
  let next = 0
  let stopping = false
  let lastAnswer = 0
  const backlog: number[] = []

  const send = (conn: Connection, dueAt: number) => {
    conn.busy = true
    conn.dueAt = dueAt
    sent++
    const request = requests[next++ % requests.length]!
    const written = conn.socket!.write(request)
    conn.pending = written < request.length ? request.subarray(written) : undefined
  }

  const finish = (conn: Connection, status: number) => {
    lastAnswer = performance.now()
    latencies.push(lastAnswer - conn.dueAt)
    if (plan.latenciesFile !== undefined) dueAts.push(conn.dueAt)
    statuses[status] = (statuses[status] ?? 0) + 1
    conn.busy = false
    dispatch(conn)
  }

  const dispatch = (conn: Connection) => {
    if (stopping || conn.busy || !conn.socket) return
    if (plan.mode === 'closed') send(conn, performance.now())
    else if (backlog.length > 0) send(conn, backlog.shift()!)
  }

  const connect = (conn: Connection) =>
    Bun.connect<undefined>({
      hostname: plan.host,
      port: plan.port,
      socket: {
        data(_socket, chunk) {
          conn.buffer = conn.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([conn.buffer, chunk])
          for (;;) {
            const parsed = parseResponse(conn.buffer)
            if (!parsed) return
            conn.buffer = conn.buffer.subarray(parsed.length)
            finish(conn, parsed.status)
          }
        },
        drain(socket) {
          if (!conn.pending) return
          const written = socket.write(conn.pending)
          conn.pending = written < conn.pending.length ? conn.pending.subarray(written) : undefined
        },
        close() {
          if (conn.busy) socketErrors++
          conn.socket = undefined
          conn.busy = false
          conn.buffer = Buffer.alloc(0)
          if (!stopping) void connect(conn).then((s) => ((conn.socket = s), dispatch(conn)), () => void socketErrors++)
        },
        error() {
          socketErrors++
        },
      },
    })

  const connections: Connection[] = Array.from({ length: plan.connections }, () => ({
    socket: undefined,
    busy: false,
    dueAt: 0,
    buffer: Buffer.alloc(0),
    pending: undefined,
  }))
  await Promise.all(connections.map(async (conn) => (conn.socket = await connect(conn))))

  const started = performance.now()
  const end = started + plan.seconds * 1000
  if (plan.mode === 'closed') {
    for (const conn of connections) dispatch(conn)
    await Bun.sleep(plan.seconds * 1000)
  } else {
    const rate = plan.rate ?? 1000
    const maxBacklog = plan.maxBacklog ?? rate
    let k = 0
    while (performance.now() < end) {
      const now = performance.now()
      while (started + (k * 1000) / rate <= now) {
        const dueAt = started + (k++ * 1000) / rate
        const idle = connections.find((c) => !c.busy && c.socket)
        if (idle && backlog.length === 0) send(idle, dueAt)
        else if (backlog.length < maxBacklog) backlog.push(dueAt)
        else dropped++
      }
      await Bun.sleep(1)
    }
  }
  // Requests still waiting are sent and everything in flight finishes
  // (bounded); the run lasts until the last answer, so the rate stays honest.
  if (plan.mode === 'closed') stopping = true
  const drainUntil = performance.now() + 10_000
  while ((backlog.length > 0 || connections.some((c) => c.busy)) && performance.now() < drainUntil) await Bun.sleep(2)
  stopping = true
  dropped += backlog.length
  backlog.length = 0
  const elapsed = (Math.max(lastAnswer, end) - started) / 1000
  for (const conn of connections) conn.socket?.end()

  if (plan.latenciesFile !== undefined) {
    writeFileSync(plan.latenciesFile, dueAts.map((due, i) => `${(due - started).toFixed(3)} ${latencies[i]!.toFixed(3)}\n`).join(''))
  }
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? NaN
  return {
    sent,
    completed: latencies.length,
    statuses,
    socketErrors,
    dropped,
    seconds: elapsed,
    p50Ms: at(0.5),
    p90Ms: at(0.9),
    p99Ms: at(0.99),
    maxMs: latencies[latencies.length - 1] ?? NaN,
  }
}

/** Status and total length of the first complete response in `buffer`, if there is one. */
function parseResponse(buffer: Buffer): { status: number; length: number } | undefined {
  const headEnd = buffer.indexOf('\r\n\r\n')
  if (headEnd === -1) return undefined
  const head = buffer.toString('latin1', 0, headEnd)
  const status = Number(head.slice(9, 12))
  const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head)
  if (lengthMatch) {
    const length = headEnd + 4 + Number(lengthMatch[1])
    return buffer.length >= length ? { status, length } : undefined
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    let at = headEnd + 4
    for (;;) {
      const lineEnd = buffer.indexOf('\r\n', at)
      if (lineEnd === -1) return undefined
      const size = parseInt(buffer.toString('latin1', at, lineEnd), 16)
      at = lineEnd + 2 + size + 2
      if (at > buffer.length) return undefined
      if (size === 0) return { status, length: at }
    }
  }
  return { status, length: headEnd + 4 }
}

if (import.meta.main) {
  const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as LoadPlan
  const report = await runLoad(plan)
  process.stdout.write(`${JSON.stringify(report)}\n`)
  process.exit(0)
}
