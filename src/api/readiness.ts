import type { ApiContext } from './api-context.ts'

/** Why the API is not ready, or that it is (SPEC.md: 200 when the database is connected). */
export type ReadinessState =
  | { readonly ready: true }
  | { readonly ready: false; readonly reason: 'shutting down' }
  | { readonly ready: false; readonly reason: 'database unreachable' }
  | { readonly ready: false; readonly reason: 'schema'; readonly detail: string }

/**
 * Readiness, checked in order: shutdown, the database answering, its
 * schema being this build's. Each database step is bounded by `timeoutMs`.
 */
export async function readinessOf(ctx: Pick<ApiContext, 'lifecycle' | 'db' | 'schema'>, timeoutMs: number): Promise<ReadinessState> {
  if (!ctx.lifecycle.accepting) return { ready: false, reason: 'shutting down' }
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
    case 'database unreachable':
      return { status: 'unavailable', database: 'unreachable' }
    case 'schema':
      return { status: 'unavailable', database: 'connected', schema: state.detail }
  }
}
