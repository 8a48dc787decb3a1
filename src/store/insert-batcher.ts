/**
 * Groups concurrent calls into batches: calls arriving within `maxWaitMs` of
 * the first queued one (or until `maxSize` are queued) are written together
 * by `writeBatch`, and each caller gets its own outcome.
 *
 * - A batch of one goes through `single`.
 * - Items with the same key never share a batch nor run concurrently: a
 *   later one waits until the batch holding the earlier one has settled, so
 *   duplicates behave as sequential calls, in arrival order.
 * - When `writeBatch` rejects (one bad item fails the whole statement), every
 *   item of that batch is retried through `single`, so only the bad item's
 *   caller gets an error. `writeBatch` must therefore be all or nothing.
 */
export type Outcome<O> = { ok: true; value: O } | { ok: false; error: unknown }

export interface InsertBatcherOptions<I, O> {
  maxSize: number
  maxWaitMs: number
  key(item: I): string
  /** One outcome per item, in order; all or nothing when it rejects. */
  writeBatch(items: readonly I[]): Promise<readonly Outcome<O>[]>
  single(item: I): Promise<O>
}

interface Pending<I, O> {
  item: I
  resolve(value: O): void
  reject(error: unknown): void
}

export interface InsertBatcher<I, O> {
  add(item: I): Promise<O>
}

export function createInsertBatcher<I, O>(options: InsertBatcherOptions<I, O>): InsertBatcher<I, O> {
  const maxSize = Math.max(1, options.maxSize)
  let queue: Pending<I, O>[] = []
  let timer: ReturnType<typeof setTimeout> | undefined
  const inFlight = new Set<string>()

  function schedule() {
    if (queue.length >= maxSize && queue.length - blocked() >= maxSize) flush()
    else if (!timer && queue.length > 0) timer = setTimeout(flush, options.maxWaitMs)
  }

  function flush() {
    if (timer) clearTimeout(timer)
    timer = undefined
    const batch: Pending<I, O>[] = []
    const rest: Pending<I, O>[] = []
    const keys = new Set<string>()
    for (const p of queue) {
      const k = options.key(p.item)
      // A key already in flight or in this batch waits (in arrival order).
      if (batch.length < maxSize && !keys.has(k) && !inFlight.has(k)) {
        keys.add(k)
        batch.push(p)
      } else rest.push(p)
    }
    queue = rest
    if (batch.length === 0) return
    for (const k of keys) inFlight.add(k)
    void run(batch).finally(() => {
      for (const k of keys) inFlight.delete(k)
      // What waited for these keys has waited long enough.
      if (queue.some((p) => keys.has(options.key(p.item)))) flush()
    })
    schedule()
  }

  function blocked() {
    return inFlight.size === 0 ? 0 : queue.filter((p) => inFlight.has(options.key(p.item))).length
  }

  async function run(batch: Pending<I, O>[]) {
    if (batch.length === 0) return
    if (batch.length === 1) return settle(batch[0]!, options.single(batch[0]!.item))
    let outcomes: readonly Outcome<O>[]
    try {
      outcomes = await options.writeBatch(batch.map((p) => p.item))
    } catch {
      // Nothing of the batch was written: each item on its own.
      await Promise.all(batch.map((p) => settle(p, options.single(p.item))))
      return
    }
    batch.forEach((p, i) => {
      const outcome = outcomes[i]
      if (!outcome) p.reject(new Error('insert batch returned no outcome'))
      else if (outcome.ok) p.resolve(outcome.value)
      else p.reject(outcome.error)
    })
  }

  async function settle(p: Pending<I, O>, result: Promise<O>) {
    try {
      p.resolve(await result)
    } catch (error) {
      p.reject(error)
    }
  }

  return {
    add(item) {
      return new Promise<O>((resolve, reject) => {
        queue.push({ item, resolve, reject })
        schedule()
      })
    },
  }
}
