/**
 * Comments, tests and docs cite only what a reader of the repository can
 * open: the README, docs/, RFCs and other projects' public pages. The
 * project's private working notes (its specification, design and style
 * files) and its own issue numbers are not among them, so neither may be
 * named anywhere in the tree. An upstream project's issue is fine when it
 * says whose it is (`electric-sql/pglite issue #1046`).
 *
 * The patterns are built from parts so that this file does not name what
 * it looks for.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..', '..')

/** What is searched, relative to the repository's root: folders recursively, and single files. */
const SEARCHED = ['src', 'hub/src', 'test', 'docs', 'examples', 'sql', 'README.md', 'compose.yaml', 'Dockerfile']
/** Folders never searched: dependencies and build output. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist'])
/** Files that are not text. */
const BINARY = /\.(png|jpe?g|gif|webp|ico|woff2?|gz|br|zst|bin)$/i

const md = (name: string) => [name, 'md'].join('.')
/** The private notes, each as a whole word: `NAME.md`, and the bare upper-case name the notes go by. */
const PRIVATE_FILES = ['SP' + 'EC', 'DES' + 'IGN', 'STY' + 'LE'].map(
  (name) => new RegExp(`\\b${md(name).replace('.', '\\.')}\\b`),
)
const BARE_NAME = new RegExp(`\\b${'SP' + 'EC'}\\b`)
/** The word, any case, then a number, with or without `#`, across a comment's line break too. */
const ISSUE_NUMBER = new RegExp(`\\b${'iss' + 'ues?'}(?:\\s|\\*|//|--)+#?\\d+`, 'gi')
/** An upstream issue names its repository right before it. */
const UPSTREAM_ISSUE = /[\w.-]+\/[\w.-]+\s*(?:\n\s*(?:\*|\/\/|#)?\s*)?$/

function filesUnder(path: string): string[] {
  const full = join(ROOT, path)
  if (!existsSync(full)) return []
  if (!statSync(full).isDirectory()) return [path]
  return readdirSync(full)
    .filter((name) => !name.startsWith('.') && !SKIPPED_DIRS.has(name))
    .sort()
    .flatMap((name) => filesUnder(`${path}/${name}`))
}

function lineOf(text: string, index: number): number {
  let line = 1
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++
  return line
}

/** Every place in `text` that names a private note or a project issue, as `line: excerpt`. */
function citations(text: string): string[] {
  const found: string[] = []
  const lines = text.split('\n')
  lines.forEach((line, i) => {
    if (PRIVATE_FILES.some((pattern) => pattern.test(line)) || BARE_NAME.test(line)) {
      found.push(`${i + 1}: ${line.trim()}`)
    }
  })
  for (const match of text.matchAll(ISSUE_NUMBER)) {
    const before = text.slice(Math.max(0, match.index - 80), match.index)
    if (UPSTREAM_ISSUE.test(before)) continue
    const line = lineOf(text, match.index)
    found.push(`${line}: ${lines[line - 1]!.trim()}`)
  }
  return found
}

describe('citations', () => {
  test('the patterns catch what they are for, and let an upstream issue through', () => {
    expect(citations(`// see ${md('SP' + 'EC')} "Errors"`)).toHaveLength(1)
    expect(citations(`# as ${md('DES' + 'IGN')} says`)).toHaveLength(1)
    expect(citations(` * per the ${'SP' + 'EC'}'s table`)).toHaveLength(1)
    expect(citations(`(${'iss' + 'ue'} 4, "Nothing is lost")`)).toHaveLength(1)
    expect(citations(`// ${'Iss' + 'ue'} #12 asks`)).toHaveLength(1)
    expect(citations(`as its ${'iss' + 'ue'}\n * #1046 reports`)).toHaveLength(1)
    expect(citations(`as electric-sql/pglite ${'iss' + 'ue'} #1046 reports`)).toEqual([])
    expect(citations(`(electric-sql/pglite\n * ${'iss' + 'ue'} #1046)`)).toEqual([])
    expect(citations('SPECIFIC, INSPECT, docs/reference/api.md "Problems", arktype issues')).toEqual([])
  })

  test('comments, tests and docs cite only what a reader of the repository can open', () => {
    const places: string[] = []
    for (const file of SEARCHED.flatMap(filesUnder)) {
      if (BINARY.test(file)) continue
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const place of citations(text)) places.push(`${relative(ROOT, join(ROOT, file))}:${place}`)
    }
    expect(places).toEqual([])
  })
})
