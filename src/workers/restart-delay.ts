/** A worker that ran at least this long before dying is restarted at once (after MIN_RESTART_DELAY_MS). */
export const STABLE_UPTIME_MS = 10_000
export const MIN_RESTART_DELAY_MS = 250
export const FIRST_BACKOFF_MS = 1_000
export const MAX_RESTART_DELAY_MS = 30_000

/**
 * How long the primary waits before restarting a worker that died after
 * running `uptimeMs`, when its previous restart waited `previousDelayMs`
 * (0 for none). A worker that ran for a while is restarted at once; one that
 * keeps dying young (a crash at startup, an upstream it cannot reach) waits
 * twice as long each time, up to 30 s, so that a crash loop costs little.
 */
export function restartDelay(uptimeMs: number, previousDelayMs: number): number {
  if (uptimeMs >= STABLE_UPTIME_MS) return MIN_RESTART_DELAY_MS
  return Math.min(MAX_RESTART_DELAY_MS, Math.max(FIRST_BACKOFF_MS, previousDelayMs * 2))
}
