import { UnavailableError } from '../errors/app-error.ts'

/** A full insert group (docs/storage.md "Ingest") for every connection of the pool. */
export const CAPTURES_PER_CONNECTION = 32

/** How long a refused sender is asked to wait: the backlog drains by whole groups, each a few ms when the database is well. */
const RETRY_AFTER_SECONDS = 1

/**
 * The captures the API has accepted but not yet answered: waiting for their
 * gate's settings, for the insert batcher or for a connection of the pool.
 * When the database slows down these pile up with their bodies in memory,
 * so above `limit` a new capture is refused at once with 503 and
 * Retry-After (README "Decisions", ingest backlog) instead of joining the
 * queue; a proxy retries it later.
 */
export class IngestBacklog {
  private count = 0

  constructor(readonly limit: number) {}

  /** Captures in progress now. */
  get size(): number {
    return this.count
  }

  /** Runs one capture's ingestion if the backlog has room. @throws UnavailableError when it has none. */
  async admit<T>(work: () => Promise<T>): Promise<T> {
    if (this.count >= this.limit) {
      throw new UnavailableError(`${this.count} captures are waiting for the database; retry later`, RETRY_AFTER_SECONDS)
    }
    this.count++
    try {
      return await work()
    } finally {
      this.count--
    }
  }
}
