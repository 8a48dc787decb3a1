import { realpath, stat } from 'node:fs/promises'
import { extname, join, resolve, sep } from 'node:path'
import { ASSETS_PREFIX } from './build-hub.ts'

/**
 * Cache-Control per kind of file (docs/hub.md "Serving": long cache for hashed
 * assets, none for the index).
 */
export const CACHE = Object.freeze({
  /** Content-hashed: the name changes when the content does. */
  immutable: 'public, max-age=31536000, immutable',
  /** The SPA shell: always revalidated, so a deploy is picked up at once. */
  index: 'no-cache',
  /** Holds the API key: revalidated and never written to a disk cache. */
  config: 'no-cache, no-store',
  /** Unhashed static files such as the favicon. */
  short: 'public, max-age=3600',
})

export type Resolved =
  | { readonly kind: 'file'; readonly path: string; readonly cache: string }
  | { readonly kind: 'index' }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'bad-request' }

/**
 * Maps a URL path to a file under `root`, or says to answer with the SPA's
 * index (a client route) or 404 (a missing file). Traversal is impossible:
 * the path is percent-decoded once, any `..`, `.`-prefixed, empty, NUL or
 * backslash segment is refused, and the resolved path must still lie under
 * `root`.
 */
export async function resolveStatic(root: string, pathname: string): Promise<Resolved> {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return { kind: 'bad-request' }
  }
  if (!decoded.startsWith('/') || /[\0\\]/.test(decoded)) return { kind: 'bad-request' }
  const segments = decoded.slice(1).split('/')
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop()
  if (segments.some((s) => s === '..' || s === '.' || (s === '' && segments.length > 1))) {
    return { kind: 'bad-request' }
  }
  // Hidden files (.gitkeep, .env) are never served.
  if (segments.some((s) => s.startsWith('.'))) return { kind: 'not-found' }
  const rel = segments.join('/')
  if (rel === '' || rel === 'index.html') return { kind: 'index' }

  const base = resolve(root)
  const full = resolve(base, rel)
  if (!full.startsWith(base + sep)) return { kind: 'bad-request' }
  if (await isFileUnder(full, base)) {
    const cache = decoded.startsWith(ASSETS_PREFIX) ? CACHE.immutable : CACHE.short
    return { kind: 'file', path: full, cache }
  }
  // A missing file (it has an extension, or is under /assets/) is a 404; an
  // extensionless path is a client route such as /gates/<id>.
  if (decoded.startsWith(ASSETS_PREFIX) || extname(segments[segments.length - 1] ?? '') !== '') {
    return { kind: 'not-found' }
  }
  return { kind: 'index' }
}

export function indexPath(root: string): string {
  return join(resolve(root), 'index.html')
}

/** A regular file whose real path (symlinks followed) is still under `base`. */
async function isFileUnder(path: string, base: string): Promise<boolean> {
  try {
    const [real, realBase] = await Promise.all([realpath(path), realpath(base)])
    return real.startsWith(realBase + sep) && (await stat(real)).isFile()
  } catch {
    return false
  }
}
