import { copyFile, mkdir, readdir } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * The `.dockerignore` rules as the Docker CLI applies them
 * (https://docs.docker.com/build/concepts/context/#dockerignore-files):
 * patterns relative to the context root, `*` and `?` within a segment, `**`
 * across segments, `!` re-includes, the last matching rule wins, and a rule
 * that matches a directory matches everything under it.
 */
export interface IgnoreRule {
  readonly pattern: string
  readonly negate: boolean
  readonly regex: RegExp
}

export function parseDockerignore(text: string): IgnoreRule[] {
  const rules: IgnoreRule[] = []
  for (const raw of text.split(/\r?\n/)) {
    let line = raw.trim()
    if (line === '' || line.startsWith('#')) continue
    const negate = line.startsWith('!')
    if (negate) line = line.slice(1).trim()
    const pattern = line.replace(/^\/+/, '').replace(/\/+$/, '')
    if (pattern === '') continue
    rules.push({ pattern, negate, regex: globToRegex(pattern) })
  }
  return rules
}

function globToRegex(pattern: string): RegExp {
  let out = ''
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*' && pattern[i + 1] === '*') {
      // `**/` matches zero or more directories; a trailing `**` anything.
      if (pattern[i + 2] === '/') {
        out += '(?:.*/)?'
        i += 2
      } else {
        out += '.*'
        i += 1
      }
    } else if (c === '*') out += '[^/]*'
    else if (c === '?') out += '[^/]'
    else out += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${out}$`)
}

/** True when the context leaves `path` (slash-separated, relative) out. */
export function isIgnored(rules: readonly IgnoreRule[], path: string): boolean {
  const prefixes = path.split('/').map((_, i, segs) => segs.slice(0, i + 1).join('/'))
  let ignored = false
  for (const rule of rules) {
    if (prefixes.some((p) => rule.regex.test(p))) ignored = !rule.negate
  }
  return ignored
}

/**
 * Whether a walk must enter an ignored directory: only when a `!` rule could
 * re-include something below it.
 */
function mayReinclude(rules: readonly IgnoreRule[], dir: string): boolean {
  const depth = dir.split('/').length
  return rules.some((r) => {
    if (!r.negate) return false
    if (r.pattern.includes('**')) return true
    const head = r.pattern.split('/').slice(0, depth)
    return head.length === depth && globToRegex(head.join('/')).test(dir)
  })
}

/**
 * Copies what the Docker CLI would send as the build context of `repoDir`
 * into `outDir`; returns the relative paths copied. `.git` is never walked.
 */
export async function copyBuildContext(
  repoDir: string,
  outDir: string,
  rules: readonly IgnoreRule[],
): Promise<string[]> {
  const copied: string[] = []
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(repoDir, rel), { withFileTypes: true })
    for (const e of entries) {
      const path = rel === '' ? e.name : `${rel}/${e.name}`
      if (path === '.git') continue
      const ignored = isIgnored(rules, path)
      if (e.isDirectory()) {
        if (!ignored || mayReinclude(rules, path)) await walk(path)
      } else if (!ignored && (e.isFile() || e.isSymbolicLink())) {
        await mkdir(join(outDir, rel), { recursive: true })
        await copyFile(join(repoDir, path), join(outDir, path))
        copied.push(path)
      }
    }
  }
  await mkdir(outDir, { recursive: true })
  await walk('')
  return copied.sort()
}
