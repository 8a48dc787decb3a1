/**
 * Latency of read endpoints over HTTP, one request at a time on a
 * keep-alive connection (what the hub does when a user opens a page).
 * Cases take turns round by round, so that a burst of other work on a
 * shared machine falls on all of them alike; a slow case stops sampling
 * once it has used its time budget.
 */

export interface ReadCase {
  readonly name: string
  /** Path and query, from the API's root. */
  readonly path: string
  /** p50 target in ms; undefined: measured for information. */
  readonly targetMs?: number
  /** p95 target in ms, if any. */
  readonly targetP95Ms?: number
}

export interface ReadResult extends ReadCase {
  readonly samples: number
  readonly p50Ms: number
  readonly p95Ms: number
  /** `pagination.total` of the last answer (list endpoints). */
  readonly total: number | undefined
  /** Items on the page (list endpoints). */
  readonly items: number | undefined
}

export interface ReadOptions {
  readonly baseUrl: string
  readonly apiKey: string
  /** Samples per case. @default 40 */
  readonly samples?: number
  /** Time a case may spend sampling, ms. @default 4000 */
  readonly budgetMs?: number
}

export async function measureReads(cases: ReadCase[], options: ReadOptions): Promise<ReadResult[]> {
  const samples = options.samples ?? 40
  const budgetMs = options.budgetMs ?? 4000
  const headers = { authorization: `Bearer ${options.apiKey}` }
  const times = cases.map((): number[] => [])
  const spent = cases.map(() => 0)
  const last = cases.map((): { total?: number; items?: number } => ({}))

  const call = async (i: number): Promise<number> => {
    const started = performance.now()
    const response = await fetch(options.baseUrl + cases[i]!.path, { headers })
    const body = (await response.json()) as { data?: unknown; pagination?: { total?: number } }
    const ms = performance.now() - started
    if (response.status !== 200) throw new Error(`${cases[i]!.path}: ${response.status} ${JSON.stringify(body)}`)
    last[i] = { total: body.pagination?.total, items: Array.isArray(body.data) ? body.data.length : undefined }
    return ms
  }

  // One warm-up call each: connection, JIT, prepared statements, caches.
  for (let i = 0; i < cases.length; i++) await call(i)
  for (let round = 0; round < samples; round++) {
    for (let i = 0; i < cases.length; i++) {
      if (round >= 5 && spent[i]! > budgetMs) continue
      const ms = await call(i)
      times[i]!.push(ms)
      spent[i]! += ms
    }
  }
  return cases.map((c, i) => {
    const sorted = times[i]!.slice().sort((a, b) => a - b)
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
    return { ...c, samples: sorted.length, p50Ms: at(0.5), p95Ms: at(0.95), total: last[i]!.total, items: last[i]!.items }
  })
}
