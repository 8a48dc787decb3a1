import { listenOr } from '../net/listen.ts'

/**
 * Fails with the one startup line of listenOr when `port` is taken, before
 * the workers bind it with SO_REUSEPORT: they would otherwise join a group
 * another process of the same user holds (an older instance, say), and the
 * kernel would split connections with it silently. Bound without the option
 * for a moment, then released for the workers.
 */
export function checkPortFree(variable: string, port: number, hostname: string): void {
  const probe = listenOr(variable, port, () =>
    Bun.serve({ port, hostname, reusePort: false, fetch: () => new Response(null, { status: 503 }) }),
  )
  void probe.stop(true)
}
