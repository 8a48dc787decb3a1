import { Socket } from 'node:net'

/**
 * What the pool looks like right now. postgres.js keeps its pool private, so
 * this is observed from the sockets it opens (see createPoolObserver).
 */
export interface PoolStats {
  /** Open connections (TLS ones included). */
  readonly total: number
  /** Open connections waiting for work. */
  readonly idle: number
  /** Connections running a query, in a transaction, or still connecting. */
  readonly active: number
  /** The most connections the pool may open. */
  readonly max: number
}

/** The parts of postgres.js's parsed options the socket factory needs. */
interface SocketTarget {
  readonly host: readonly string[]
  readonly port: readonly number[]
  readonly path?: string | false | undefined
}

/** PostgreSQL protocol codes of the untyped first message a client sends. */
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

interface Tracked {
  /** TLS or GSS: the protocol is no longer readable, so not classified. */
  opaque: boolean
  /** A CancelRequest connection: not part of the pool. */
  cancel: boolean
  /** Replies (ReadyForQuery) owed: one per Sync, simple Query and the startup. */
  owed: number
  /** Bytes went out since the last ReadyForQuery (Parse/Describe/Flush round trips). */
  wrote: boolean
  /** The last ReadyForQuery said "in a transaction" (T) or "failed transaction" (E). */
  inTransaction: boolean
}

/**
 * Observes postgres.js's pool through the `socket` option: the factory opens
 * the sockets itself and reads the message framing of the PostgreSQL
 * protocol in both directions (never the content), so that it knows which
 * connections are open and which owe a reply. Over TLS only "open" can be
 * known; such connections count in `total` and in neither `idle` nor `active`.
 */
export function createPoolObserver(max: number) {
  const sockets = new Map<Socket, Tracked>()
  let nextHost = 0

  function socket(target: SocketTarget): Socket {
    const s = new Socket()
    const state: Tracked = { opaque: false, cancel: false, owed: 0, wrote: false, inTransaction: false }
    sockets.set(s, state)
    s.once('close', () => sockets.delete(s))

    const outgoing = frameReader(true, (type, code) => {
      if (type === 0) {
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) state.opaque = true
        else if (code === CANCEL_REQUEST) state.cancel = true
        else state.owed += 1 // StartupMessage: answered by the first ReadyForQuery
        return
      }
      state.wrote = true
      if (type === 0x53 /* S: Sync */ || type === 0x51 /* Q: Query */) state.owed += 1
    })
    const incoming = frameReader(false, (type, status) => {
      if (type !== 0x5a /* Z: ReadyForQuery */) return
      state.owed = Math.max(0, state.owed - 1)
      state.wrote = false
      state.inTransaction = status === 0x54 /* T */ || status === 0x45 /* E */
    })
    if (target.path) s.connect(target.path)
    else {
      const i = nextHost++ % target.host.length
      s.connect(target.port[i] ?? target.port[0] ?? 5432, target.host[i])
    }
    // Wrapped after connect(): Bun's connect() installs its own `write` on
    // the instance. Should a runtime replace it later, the check on 'data'
    // stops classifying this socket rather than report wrong numbers.
    const write = s.write.bind(s) as (chunk: unknown, ...rest: unknown[]) => boolean
    const observed = ((chunk: unknown, ...rest: unknown[]) => {
      if (!state.opaque && chunk instanceof Uint8Array) outgoing(chunk)
      return write(chunk, ...rest)
    }) as Socket['write']
    s.write = observed
    s.on('data', (chunk: Buffer) => {
      if (s.write !== observed) state.opaque = true
      if (!state.opaque) incoming(chunk)
    })
    return s
  }

  function stats(): PoolStats {
    let total = 0
    let active = 0
    let idle = 0
    for (const [s, state] of sockets) {
      if (s.destroyed) {
        sockets.delete(s)
        continue
      }
      if (state.cancel) continue
      total += 1
      if (state.opaque) continue
      if (state.owed > 0 || state.wrote || state.inTransaction) active += 1
      else idle += 1
    }
    return { total, idle, active, max }
  }

  return { socket, stats }
}

/**
 * Splits a byte stream into PostgreSQL protocol messages without buffering
 * their bodies: `[type:1][length:4][body]`, or for a client's first message
 * `[length:4][code:4][body]` (reported as type 0 with the code). For
 * ReadyForQuery the first body byte (the transaction status) is reported.
 */
function frameReader(untypedFirst: boolean, onMessage: (type: number, detail: number) => void) {
  let first = untypedFirst
  const header = new Uint8Array(8)
  let have = 0
  let skip = 0
  let statusOf = -1 // the type whose first body byte is wanted, or -1

  return (chunk: Uint8Array): void => {
    let i = 0
    while (i < chunk.length) {
      if (skip > 0) {
        if (statusOf !== -1) {
          onMessage(statusOf, chunk[i]!)
          statusOf = -1
        }
        const n = Math.min(skip, chunk.length - i)
        i += n
        skip -= n
        continue
      }
      const size = first ? 8 : 5
      const n = Math.min(size - have, chunk.length - i)
      header.set(chunk.subarray(i, i + n), have)
      have += n
      i += n
      if (have < size) return
      have = 0
      const view = new DataView(header.buffer)
      if (first) {
        first = false
        skip = view.getInt32(0) - 8
        onMessage(0, view.getInt32(4))
        continue
      }
      const type = header[0]!
      skip = view.getInt32(1) - 4
      if (type === 0x5a && skip > 0) statusOf = type
      else onMessage(type, -1)
    }
  }
}
