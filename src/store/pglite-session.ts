import type { PGlite } from '@electric-sql/pglite'
import { frontendMessage, ReadyForQueryScanner, type TransactionStatus } from './pg-wire.ts'

/** One client connection's side of the shared session. */
export interface SessionConnection {
  /** Queues a whole frontend message (see FrontendReader) for PGlite. */
  submit(message: Uint8Array): void
  /** Terminate: the client is ended once the messages it sent before have run. */
  finish(): void
  /** The client is gone: drops what it queued and undoes what it left open. */
  close(): void
}

export interface SessionClient {
  /** The backend's answer, as PGlite hands it out; copy what is kept. */
  write(bytes: Uint8Array): void
  /** PGlite threw while serving this client; the connection should go. */
  fail(error: unknown): void
  /** The client said Terminate and everything before it has run. */
  end(): void
}

/** In a client's queue: Terminate, after the messages before it. */
const END: unique symbol = Symbol('Terminate')

interface Client {
  readonly io: SessionClient
  readonly pending: Array<Uint8Array | typeof END>
  queued: boolean
  closed: boolean
}

/**
 * Takes turns over PGlite's single backend session for several client
 * connections. A connection owns the session from its first message until
 * the backend is ready for a query outside any transaction block
 * (ReadyForQuery 'I'); meanwhile the others' messages wait. So an exchange
 * of the extended protocol (Parse ... Sync) and a transaction block (BEGIN
 * ... COMMIT) run whole, as they would on a session of their own: the
 * unnamed statement and portal, a failed exchange's "skip until Sync" and
 * the transaction belong to the connection that started them.
 *
 * @electric-sql/pglite-socket queues message by message and keeps a
 * connection's messages together only inside a transaction block, so concurrent
 * exchanges interleave: one connection's Bind or Execute runs on another's
 * statement or portal ("portal does not exist", or the other query's rows), as
 * electric-sql/pglite issue #1046 reports and docs/storage.md shows.
 *
 * A connection that closes while it owns the session has its exchange
 * aborted and its transaction rolled back, as a backend does for a client
 * that goes away. A connection that keeps the session and sends nothing
 * holds everyone up, as a lock would on PostgreSQL: postgres.js does so
 * only inside `sql.begin` while its callback awaits something else.
 */
export class PgliteSession {
  private owner: Client | undefined
  private readonly waiting: Client[] = []
  private running = false
  /** The backend's output is one stream, whoever it goes to. */
  private scanner = new ReadyForQueryScanner()

  constructor(private readonly db: PGlite) {}

  open(io: SessionClient): SessionConnection {
    const client: Client = { io, pending: [], queued: false, closed: false }
    return {
      submit: (message) => this.enqueue(client, message),
      finish: () => this.enqueue(client, END),
      close: () => {
        if (client.closed) return
        retire(client)
        if (client === this.owner) void this.pump()
      },
    }
  }

  private enqueue(client: Client, message: Uint8Array | typeof END): void {
    if (client.closed) return
    client.pending.push(message)
    if (client !== this.owner && !client.queued) {
      client.queued = true
      this.waiting.push(client)
    }
    void this.pump()
  }

  /** Serves queued messages, one at a time, until none can go next. */
  private async pump(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      for (;;) {
        let client = this.owner
        if (client?.closed) {
          await this.abandon()
          this.owner = undefined
          continue
        }
        let turnStarts = false
        if (!client) {
          client = this.waiting.shift()
          if (!client) return
          client.queued = false
          if (client.closed) continue
          this.owner = client
          turnStarts = true
        }
        const message = client.pending.shift()
        // The owner is between two messages of one exchange or transaction.
        if (!message) return
        if (message === END) {
          retire(client)
          client.io.end()
          // A client whose turn only starts left nothing open; an owner may have (abandoned next).
          if (turnStarts) this.owner = undefined
          continue
        }
        let status: TransactionStatus | undefined
        try {
          status = await this.execute(message, client.io)
        } catch (error) {
          // Cut off mid-answer, perhaps: the framing starts over with the next one.
          this.scanner = new ReadyForQueryScanner()
          retire(client)
          client.io.fail(error)
          continue
        }
        if (status === 'I' && !client.closed) {
          this.owner = undefined
          if (client.pending.length > 0) {
            client.queued = true
            this.waiting.push(client)
          }
        }
      }
    } finally {
      this.running = false
    }
  }

  /**
   * Ends what a departed owner left open, its answers discarded: an Execute
   * of a portal that does not exist fails any implicit transaction of an
   * unfinished exchange (an exchange already failing skips it), Sync ends
   * the exchange, and ROLLBACK ends a transaction block.
   */
  private async abandon(): Promise<void> {
    try {
      await this.execute(EXECUTE_NO_PORTAL)
      const status = await this.execute(SYNC)
      if (status !== 'I') await this.execute(ROLLBACK)
    } catch {
      // PGlite itself failed; the next client's messages will say so.
    }
  }

  /** Runs one message; the transaction status if the answer ended with ReadyForQuery. */
  private async execute(message: Uint8Array, io?: SessionClient): Promise<TransactionStatus | undefined> {
    await this.db.runExclusive(() =>
      this.db.execProtocolRawStream(message, {
        // Once per answer that reaches ReadyForQuery (below), not per message.
        syncToFs: false,
        onRawData: (data) => {
          this.scanner.feed(data)
          io?.write(data)
        },
      }),
    )
    const status = this.scanner.takeStatus()
    if (status !== undefined) await this.db.syncToFs()
    return status
  }
}

/** A client gone, or going: nothing more of it is served. */
function retire(client: Client): void {
  client.closed = true
  client.pending.length = 0
}

// What abandon() sends in a departed owner's place.
const EXECUTE_NO_PORTAL = frontendMessage('E', new TextEncoder().encode('svc_abandoned_exchange\0\0\0\0\0'))
const SYNC = frontendMessage('S')
const ROLLBACK = frontendMessage('Q', new TextEncoder().encode('ROLLBACK\0'))
