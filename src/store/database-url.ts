import { isAbsolute, resolve } from 'node:path'
import { DatabaseUrlError } from './errors.ts'

/**
 * Where the data lives, as decided by SVC_APP_DATABASE_URL
 * (docs/reference/configuration.md "API").
 */
export type DatabaseTarget =
  | { readonly kind: 'postgres'; readonly url: string }
  /** `dataDir` undefined: in memory, gone when the process ends. */
  | { readonly kind: 'pglite'; readonly dataDir: string | undefined }

const PGLITE = 'pglite://'

/**
 * Parses a database URL:
 * - `postgres://...` or `postgresql://...`: a PostgreSQL server;
 * - `pglite://memory`: embedded PGlite in memory;
 * - `pglite://<dir>`: embedded PGlite persisted in `<dir>` (relative to `cwd`
 *   or absolute, as in `pglite:///var/lib/svc`).
 *
 * The error message never repeats the URL, which may hold a password.
 */
export function parseDatabaseUrl(text: string, cwd = process.cwd()): DatabaseTarget {
  const url = text.trim()
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase()
  if (scheme === 'postgres' || scheme === 'postgresql') return { kind: 'postgres', url }
  if (scheme === 'pglite') {
    const rest = url.slice(PGLITE.length)
    if (rest === '') {
      throw new DatabaseUrlError('a pglite:// database URL needs "memory" or a directory, as in pglite://memory or pglite://./data')
    }
    if (rest === 'memory') return { kind: 'pglite', dataDir: undefined }
    return { kind: 'pglite', dataDir: isAbsolute(rest) ? rest : resolve(cwd, rest) }
  }
  const shown = scheme === undefined ? 'no scheme' : `the scheme "${scheme}://"`
  throw new DatabaseUrlError(
    `unsupported database URL (${shown}): expected postgres://, postgresql://, pglite://memory or pglite://<dir>`,
  )
}
