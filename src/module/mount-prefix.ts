/**
 * Where the module sits in its host (docs/module.md: `svcGate(config, { prefix:
 * '/api' })`) and which path it forwards.
 *
 * Decisions (docs/module.md "Decisions"):
 * - A prefix is a path of whole segments: `/api` takes `/api`, `/api/` and
 *   `/api/...`, never `/apix`. Matching is case-sensitive, as URL paths and
 *   Elysia's router are. No prefix (or `/`) takes every path.
 * - By default the path is forwarded as the client sent it, prefix
 *   included: a team that shadows `/api/*` of an existing service has live
 *   and shadow serving those same paths. `stripPrefix` forwards
 *   `/api/items?x=1` as `/items?x=1` instead, for upstreams mounted at
 *   their root.
 * - Shadow rules match the forwarded path: the path live and shadow see.
 */
import { pathAndQueryOf } from '../net/request-target.ts'
import { ModuleConfigError } from './module-config-error.ts'

export interface MountPrefix {
  /** Normalised: `''` (every path) or `/segment[/segment...]` without a trailing slash. */
  readonly prefix: string
  readonly stripPrefix: boolean
  /** Whether the module handles this path (no query). */
  matches(pathname: string): boolean
  /**
   * The path and query to forward for a request URL, or `undefined` when
   * it is the URL's own (nothing to strip), which spares the core a copy.
   */
  forwardedTarget(url: string): string | undefined
}

/** Characters that would turn a prefix into a pattern in Bun's or Elysia's router, or cannot be in a path. */
const NOT_IN_PREFIX = /[*:?#\s]/

/** Validates and normalises `prefix` (`'/api/'` → `'/api'`, `'/'` → `''`). */
export function mountPrefix(prefix = '', stripPrefix = false): MountPrefix {
  if (
    prefix !== '' &&
    (!prefix.startsWith('/') || NOT_IN_PREFIX.test(prefix) || prefix.includes('//'))
  ) {
    throw new ModuleConfigError(
      'prefix',
      'a path such as "/api" (starting with "/", without "*", ":", "?", "#", "//" or spaces)',
      JSON.stringify(prefix),
    )
  }
  const normalised = prefix.replace(/\/+$/, '')
  const strip = stripPrefix && normalised !== ''
  const matches = (pathname: string) =>
    normalised === '' ||
    (pathname.startsWith(normalised) &&
      (pathname.length === normalised.length || pathname[normalised.length] === '/'))
  return {
    prefix: normalised,
    stripPrefix: strip,
    matches,
    forwardedTarget(url) {
      if (!strip) return undefined
      const target = pathAndQueryOf(url)
      const query = target.indexOf('?')
      // Not under the prefix (a host that mounts the plugin under a prefix of its own): as received.
      if (!matches(query === -1 ? target : target.slice(0, query))) return undefined
      const rest = target.slice(normalised.length)
      return rest.startsWith('/') ? rest : `/${rest}`
    },
  }
}
