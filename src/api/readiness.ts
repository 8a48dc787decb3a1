import type { ApiContext } from './api-context.ts'

/**
 * Why the API is not ready, or that it is (docs/reference/api.md "Without a
 * key": 200 when the database answers).
 */
export type ReadinessState =
  | { readonly ready: true }
  | { readonly ready: false; readonly reason: 'shutting down' }
  /** One of several workers, and not every worker serves yet (docs/proxy.md "Workers"). */
  | { readonly ready: false; readonly reason: 'workers starting' }
  | { readonly ready: false; readonly reason: 'database unreachable' }
  | { readonly ready: false; readonly reason: 'schema'; readonly detail: string }

/**
 * The answers that need no query, so are never cached: shutdown, and (one
 * of several workers) the primary's word that they are not all serving
 * yet, or are stopping.
 */
export function readinessWithoutQuery(ctx: Pick<ApiContext, 'lifecycle' | 'workers'>): ReadinessState | undefined {
  if (!ctx.lifecycle.accepting || ctx.workers?.clusterState === 'stopping') return { ready: false, reason: 'shutting down' }
  if (ctx.workers !== undefined && ctx.workers.clusterState !== 'ready') return { ready: false, reason: 'workers starting' }
  return undefined
}

/**
 * Readiness, checked in order: shutdown (and the other workers), the
 * database answering, its schema being this build's. Each database step
 * is bounded by `timeoutMs`.
 */
export async function readinessOf(ctx: Pick<ApiContext, 'lifecycle' | 'workers' | 'db' | 'schema'>, timeoutMs: number): Promise<ReadinessState> {
  const early = readinessWithoutQuery(ctx)
  if (early !== undefined) return early
  if (!(await ctx.db.ping(timeoutMs))) return { ready: false, reason: 'database unreachable' }
  const problem = await ctx.schema.problem(timeoutMs)
  return problem === undefined ? { ready: true } : { ready: false, reason: 'schema', detail: problem }
}

/** The body `/health/ready` answers with. */
export function readinessBody(state: ReadinessState): Record<string, string> {
  if (state.ready) return { status: 'ok', database: 'connected' }
  switch (state.reason) {
    case 'shutting down':
      return { status: 'shutting down' }
    case 'workers starting':
      return { status: 'unavailable', workers: 'starting' }
    case 'database unreachable':
      return { status: 'unavailable', database: 'unreachable' }
    case 'schema':
      return { status: 'unavailable', database: 'connected', schema: state.detail }
  }
}
