/**
 * The module as an Elysia plugin: two ordinary routes, `<prefix>` and
 * `<prefix>/*`, for every method, whose handler is the gate's forwarding.
 *
 * - `parse: 'none'`: Elysia must not read the body; the core streams it to
 *   live (and reads it once for the shadow), byte for byte.
 * - Ordinary routes, so the host's other routes are untouched, and a route
 *   the host declares under the prefix itself (`GET /api/health`) wins over
 *   the wildcard, as in any Elysia app. Hooks the host registers before
 *   `.use(gate.plugin)` apply to these routes as to its own.
 * - Named and seeded per gate: `.use()` of the same gate twice mounts it
 *   once; two gates mount side by side.
 * - `app.stop()` starts `gate.close()` (Elysia does not await its stop
 *   hooks; `await gate.close()` after `await app.stop()` waits for the
 *   drain).
 */
import { Elysia } from 'elysia'
import type { MountPrefix } from './mount-prefix.ts'

/** What the core needs from the host server: the client's address, for X-Forwarded-For. */
export interface ClientAddressSource {
  requestIP(request: Request): { readonly address: string } | null
}

export interface GatePluginOptions {
  readonly mount: MountPrefix
  /** A different seed per gate, so that Elysia deduplicates only the same gate. */
  readonly seed: number
  /** Forwards a request the route took, whatever its path. */
  readonly forward: (request: Request, server: ClientAddressSource | undefined) => Promise<Response>
  readonly close: () => Promise<void>
}

/** The plugin of one gate; `svcGate()` makes it on first use of `gate.plugin`. */
export function gatePlugin(options: GatePluginOptions) {
  const { mount, forward, close } = options
  const handle = ({ request, server }: { request: Request; server: ClientAddressSource | null }) =>
    forward(request, server ?? undefined)
  const hook = { parse: 'none' } as const
  return new Elysia({ name: 'svc-gate', seed: options.seed })
    .all(mount.prefix === '' ? '/' : mount.prefix, handle, hook)
    .all(`${mount.prefix}/*`, handle, hook)
    .onStop(() => {
      void close()
    })
}

export type SvcGatePlugin = ReturnType<typeof gatePlugin>
