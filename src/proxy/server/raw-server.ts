/**
 * The raw server (SVC_APP_PROXY_SERVER=raw, docs/proxy.md "The raw
 * server"): the proxy's listener on Bun's TCP sockets, with no Request,
 * Response or stream object per request. It serves the plain HTTP/1.1
 * request itself (`request-head.ts`), live's response relayed by our
 * HTTP/1.1 client (`relay-live.ts`); a connection whose request it does
 * not take goes, from that request on, to Bun.serve on 127.0.0.1 running
 * the same handler (`splice.ts`), which answers it as the Bun.serve
 * server does.
 */
import type { ClientSide } from '../pipeline/relay-live.ts'
import type { RelayedRequest } from '../pipeline/shadow-handler.ts'
import { plainAddress } from '../policy/forward-headers.ts'
import { RawConnection, type RawServerContext } from './raw-connection.ts'
import { splice, type SpliceAddresses } from './splice.ts'

export interface RawServerOptions {
  readonly hostname: string
  readonly port: number
  /** Share the port with the other workers (SO_REUSEPORT). */
  readonly reusePort: boolean
  /** Closes a connection on which nothing moved for this long (docs/proxy.md "Timeouts"). */
  readonly idleTimeoutSeconds: number
  /** The shadow handler's `relay`. */
  readonly relay: (request: RelayedRequest, side: ClientSide) => void
  /**
   * Starts Bun.serve on 127.0.0.1 for the requests the raw server does not
   * take, reading a client's address from `addresses` by its peer's port.
   */
  readonly fallback: (addresses: SpliceAddresses) => Bun.Server<undefined>
}

export interface RawServer {
  readonly port: number
  /**
   * Stops accepting, closes idle connections, lets the requests being
   * answered finish within `boundMs`, then closes what is left.
   */
  stop(boundMs: number): Promise<void>
}

export function serveRaw(options: RawServerOptions): RawServer {
  const addresses: SpliceAddresses = new Map()
  const fallback = options.fallback(addresses)
  const fallbackPort = fallback.port!
  const connections = new Set<RawConnection>()
  let allClosed: (() => void) | undefined
  const context: RawServerContext & { stopping: boolean } = {
    relay: options.relay,
    splice: (connection, bytes) => splice(connection, bytes, fallbackPort, addresses),
    stopping: false,
    closed(connection) {
      connections.delete(connection)
      if (connections.size === 0) allClosed?.()
    },
  }
  const listenOptions: Bun.TCPSocketListenOptions<RawConnection> & { reusePort: boolean } = {
    hostname: options.hostname,
    port: options.port,
    // Bun.listen honours reusePort (1.4.5), though its types list it for connect only.
    reusePort: options.reusePort,
    socket: {
      open(socket) {
        const connection = new RawConnection(socket, plainAddress(socket.remoteAddress), context)
        socket.data = connection
        connections.add(connection)
        socket.setNoDelay(true)
        socket.timeout(options.idleTimeoutSeconds)
        if (context.stopping) connection.closeWhenFlushed()
      },
      data: (socket, chunk) => socket.data.onData(chunk),
      drain: (socket) => socket.data.onWritable(),
      timeout: (socket) => socket.terminate(),
      end: (socket) => {
        socket.end()
      },
      close: (socket) => socket.data.onClose(),
      error: (socket) => socket.data.onClose(),
    },
  }
  const listener = Bun.listen(listenOptions)

  return {
    port: listener.port,
    async stop(boundMs) {
      context.stopping = true
      const deadline = performance.now() + boundMs
      listener.stop(false)
      // Idle connections close now; one answering a request closes once its response is through.
      // A request partly read (a body still arriving) is let finish, as Bun.serve lets one it has begun.
      for (const connection of connections) if (connection.idle) connection.closeWhenFlushed()
      const fallbackStopped = fallback.stop(false)
      if (connections.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, boundMs)
          allClosed = () => {
            clearTimeout(timer)
            resolve()
          }
        })
      }
      for (const connection of connections) connection.socket.terminate()
      await Promise.race([fallbackStopped, Bun.sleep(Math.max(0, deadline - performance.now()))])
      await fallback.stop(true)
    },
  }
}
