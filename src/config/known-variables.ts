import { API_VARIABLES } from './api-config.ts'
import { HUB_VARIABLES } from './hub-config.ts'
import { MIGRATE_VARIABLES } from './migrate-config.ts'
import { PROXY_VARIABLES } from './proxy-config.ts'
import type { Environment } from './environment.ts'

const KNOWN = new Set([...API_VARIABLES, ...HUB_VARIABLES, ...MIGRATE_VARIABLES, ...PROXY_VARIABLES])
/** Every variable some component reads (docs/reference/configuration.md lists each). */
export const KNOWN_VARIABLES: ReadonlySet<string> = KNOWN

export interface UnknownVariable {
  readonly variable: string
  /** The known variable it is most likely a misspelling of, if any is close. */
  readonly suggestion: string | undefined
}

/**
 * `SVC_APP_*` variables that no component reads: most likely misspelt
 * (`SVC_APP_RETENTON`), which would otherwise leave the default in force
 * without a word. Names read by any component count as known, since one
 * shell or `.env` often serves several.
 */
export function unknownVariables(env: Environment): UnknownVariable[] {
  const out: UnknownVariable[] = []
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('SVC_APP_') || KNOWN.has(name) || env[name] === undefined) continue
    out.push({ variable: name, suggestion: closest(name) })
  }
  return out
}

/** The known name within two edits of `name`, the nearest first. */
function closest(name: string): string | undefined {
  let best: string | undefined
  let bestDistance = 3
  for (const known of KNOWN) {
    const distance = editDistance(name, known, bestDistance)
    if (distance < bestDistance) {
      best = known
      bestDistance = distance
    }
  }
  return best
}

/** Levenshtein distance, or `limit` as soon as it is certain to reach it. */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit) return limit
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let rowMin = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      current.push(value)
      rowMin = Math.min(rowMin, value)
    }
    if (rowMin >= limit) return limit
    previous = current
  }
  return Math.min(previous[b.length]!, limit)
}

/** One warning per unknown `SVC_APP_*` variable, with the likely intended name. */
export function warnUnknownVariables(env: Environment, logger: { warn(message: string, attributes?: Record<string, unknown>): void }): void {
  for (const { variable, suggestion } of unknownVariables(env)) {
    logger.warn('unknown variable ignored', suggestion === undefined ? { variable } : { variable, did_you_mean: suggestion })
  }
}
