import type { Connection } from './http1-connection.ts'

/**
 * How much sooner than a server's announced idle timeout its connection
 * stops being reused: the request must reach it before it closes, and its
 * timer may have started before our clock read the response (Node's HTTP
 * agent leaves the same second).
 */
export const KEEP_ALIVE_MARGIN_MS = 1000

/**
 * A host's idle keep-alive connections, most recently used first: at most
 * `maxIdle` of them, and at most `budget.max` across hosts (0: no such
 * bound); one idle longer than `idleTimeoutMs` (0: no bound) is closed,
 * and one idle for longer than its server said it keeps idle connections
 * (`Keep-Alive: timeout=N`, less KEEP_ALIVE_MARGIN_MS) is never reused: a
 * request written as the server closes it would be lost or, when it
 * cannot be replayed, fail as a reset.
 */
export class IdleConnections {
  private readonly list: Connection[] = []
  private sweeper: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly maxIdle: number,
    private readonly budget: { count: number; readonly max: number },
    private readonly idleTimeoutMs: number,
  ) {}

  take(): Connection | undefined {
    let now = -1
    for (;;) {
      const connection = this.list.pop()
      if (connection === undefined) return undefined
      this.leave(connection)
      if (connection.closed) continue
      if (this.idleTimeoutMs !== 0 || connection.reusableUntil !== Infinity) {
        if (now === -1) now = performance.now()
        if ((this.idleTimeoutMs !== 0 && now - connection.idleSince > this.idleTimeoutMs) || now >= connection.reusableUntil) {
          connection.close()
          continue
        }
      }
      connection.reused = true
      return connection
    }
  }

  /**
   * @param serverIdleMs how long the server keeps it idle, from its
   *   `Keep-Alive: timeout=`; undefined when it did not say
   */
  put(connection: Connection, serverIdleMs?: number): void {
    if (connection.closed) return
    const full = this.list.length >= this.maxIdle || (this.budget.max !== 0 && this.budget.count >= this.budget.max)
    const reusableMs = serverIdleMs === undefined ? Infinity : serverIdleMs - KEEP_ALIVE_MARGIN_MS
    if (full || reusableMs <= 0) {
      connection.close()
      return
    }
    const needsClock = this.idleTimeoutMs !== 0 || reusableMs !== Infinity
    connection.idleSince = needsClock ? performance.now() : 0
    connection.reusableUntil = connection.idleSince + reusableMs
    connection.onIdleClose = this.remove
    this.list.push(connection)
    this.budget.count++
    if (this.idleTimeoutMs !== 0 && this.sweeper === undefined) {
      this.sweeper = setInterval(this.sweep, Math.min(1000, this.idleTimeoutMs))
      this.sweeper.unref()
    }
  }

  closeAll(): void {
    for (const connection of this.list.splice(0)) this.leave(connection).close()
    this.stopSweeper()
  }

  private readonly remove = (connection: Connection) => {
    const index = this.list.indexOf(connection)
    if (index === -1) return
    this.list.splice(index, 1)
    this.leave(connection)
  }

  private readonly sweep = () => {
    const now = performance.now()
    // Oldest first: the list is in the order connections went idle.
    while (this.list.length > 0 && now - this.list[0]!.idleSince > this.idleTimeoutMs) {
      this.leave(this.list.shift()!).close()
    }
    if (this.list.length === 0) this.stopSweeper()
  }

  /** Book-keeping of a connection taken out of the list (the caller has taken it out). */
  private leave(connection: Connection): Connection {
    this.budget.count--
    connection.onIdleClose = undefined
    return connection
  }

  private stopSweeper(): void {
    if (this.sweeper !== undefined) clearInterval(this.sweeper)
    this.sweeper = undefined
  }
}
