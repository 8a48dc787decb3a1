import { ConfigError } from '../config/config-error.ts'

/**
 * Runs `listen` (a `Bun.serve` call); a port already in use becomes the one
 * startup line naming the variable that chose it
 * (docs/reference/configuration.md "How values are read"). Its callers pass
 * `reusePort: false` to Bun.serve: Bun turns SO_REUSEPORT on when `development`
 * is false, and two processes then share the port silently, the kernel
 * splitting connections between them.
 */
export function listenOr<T>(variable: string, port: number, listen: () => T): T {
  try {
    return listen()
  } catch (error) {
    if (isAddressInUse(error)) {
      throw new ConfigError(variable, String(port), 'is already in use by another process')
    }
    throw error
  }
}

/** Whether a listen failed because the port is taken. */
export function isAddressInUse(error: unknown): boolean {
  return (error as { code?: unknown }).code === 'EADDRINUSE'
}

/** `host:port` as bound, for the startup log beside the URL to open. */
export function boundAddress(server: { hostname?: string; port?: number }): string {
  const host = server.hostname ?? ''
  return `${host.includes(':') ? `[${host}]` : host}:${server.port}`
}
