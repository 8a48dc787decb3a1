import type { Connection } from './http1-connection.ts'

/**
 * A host's idle keep-alive connections, most recently used first: at most
 * `maxIdle` of them, and at most `budget.max` across hosts (0: no such
 * bound); one idle longer than `idleTimeoutMs` (0: no bound) is closed.
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
    const now = this.idleTimeoutMs === 0 ? 0 : performance.now()
    for (;;) {
      const connection = this.list.pop()
      if (connection === undefined) return undefined
      this.leave(connection)
      if (connection.closed) continue
      if (this.idleTimeoutMs !== 0 && now - connection.idleSince > this.idleTimeoutMs) {
        connection.close()
        continue
      }
      connection.reused = true
      return connection
    }
  }

  put(connection: Connection): void {
    if (connection.closed) return
    if (this.list.length >= this.maxIdle || (this.budget.max !== 0 && this.budget.count >= this.budget.max)) {
      connection.close()
      return
    }
    connection.idleSince = this.idleTimeoutMs === 0 ? 0 : performance.now()
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
