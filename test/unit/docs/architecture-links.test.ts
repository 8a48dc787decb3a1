/**
 * Every relative link in README.md, docs/*.md and docs/reference/*.md
 * leads somewhere: its file exists in the repository, and its `#anchor`,
 * when it has one, names a heading of that file as GitHub renders it. A
 * file moved or a heading renamed without its links fails here.
 */
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..', '..')

/** The documents whose links are checked, relative to the repository's root. */
function documents(): string[] {
  const inDir = (dir: string) =>
    readdirSync(join(ROOT, dir))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${dir}/${name}`)
  return ['README.md', ...inDir('docs'), ...inDir('docs/reference')]
}

/** The lines outside fenced code blocks (``` or ~~~, closed by a fence of the same kind at least as long). */
function outsideFences(markdown: string): string[] {
  let fence: string | undefined
  const lines: string[] = []
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined) {
      if (marker === undefined) lines.push(line)
      else fence = marker
    } else if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
      fence = undefined
    }
  }
  return lines
}

/** The text outside code blocks and code spans, where a `[text](target)` is a link. */
function prose(markdown: string): string {
  return outsideFences(markdown).join('\n').replace(/(`+)[^`]*?\1/g, '')
}

/** Each link's target as written: `[text](target)` and `![alt](target)`, a title after it dropped. */
function linkTargets(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g)].map((m) => m[1]!)
}

/**
 * GitHub's anchor for a heading (github-slugger): its text as rendered
 * (code spans, links and emphasis reduced to their words), lower case,
 * every character but letters, digits, marks, `_`, `-` and spaces dropped,
 * each space a `-`.
 */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+/g, '')
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown file's headings, a repeated one suffixed `-1`, `-2`... as GitHub does. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const line of outsideFences(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = headingSlug(heading)
    const count = seen.get(slug) ?? 0
    seen.set(slug, count + 1)
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
  }
  return anchors
}

/** A link that leaves the repository: a scheme (`https:`, `mailto:`) or a protocol-relative `//host`. */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')
}

interface Broken {
  readonly document: string
  readonly target: string
  readonly why: string
}

/** What is wrong with each relative link of `document` (a path from the root). */
function brokenLinks(document: string): Broken[] {
  const broken: Broken[] = []
  for (const target of linkTargets(readFileSync(join(ROOT, document), 'utf8'))) {
    if (target === '' || isExternal(target)) continue
    const hash = target.indexOf('#')
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
    const file = pathPart === '' ? join(ROOT, document) : pathPart.startsWith('/') ? join(ROOT, pathPart) : join(ROOT, dirname(document), pathPart)
    if (relative(ROOT, file).startsWith('..')) {
      broken.push({ document, target, why: 'points outside the repository' })
      continue
    }
    if (!existsSync(file)) {
      broken.push({ document, target, why: `no such file: ${relative(ROOT, file)}` })
      continue
    }
    if (anchor === undefined || anchor === '') continue
    if (!file.endsWith('.md') || statSync(file).isDirectory()) {
      broken.push({ document, target, why: 'an anchor into a file that is not Markdown' })
      continue
    }
    if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
      broken.push({ document, target, why: `no heading of ${relative(ROOT, file)} has the anchor #${anchor}` })
    }
  }
  return broken
}

describe('headingSlug (GitHub anchors)', () => {
  test.each([
    ['Layout', 'layout'],
    ['Memory: a budget of bytes in flight', 'memory-a-budget-of-bytes-in-flight'],
    ["The shadow's client", 'the-shadows-client'],
    ['`getConfig`: `GET /config`', 'getconfig-get-config'],
    ['Workers', 'workers'],
    ['Verdict and replay (`bun run verdict`, `bun run replay`)', 'verdict-and-replay-bun-run-verdict-bun-run-replay'],
    ['Shadowing inside your own Bun app: `svc_gate`', 'shadowing-inside-your-own-bun-app-svc_gate'],
    ['On a second 2-vCPU AMD EPYC machine (2026-11-21 06:30–06:58 UTC)', 'on-a-second-2-vcpu-amd-epyc-machine-2026-11-21-06300658-utc'],
    ['A [linked](x.md) **bold** heading', 'a-linked-bold-heading'],
  ])('%p → %p', (heading, slug) => {
    expect(headingSlug(heading)).toBe(slug)
  })

  test('a repeated heading gets -1, -2', () => {
    expect([...anchorsOf('# A\n## A\n```\n# A\n```\n### A\n')]).toEqual(['a', 'a-1', 'a-2'])
  })
})

describe('linkTargets', () => {
  test('links and images outside code; titles dropped', () => {
    const text = [
      'See [proxy](docs/proxy.md#layout) and ![shot](docs/screenshots/gate.png "the gate").',
      '`[not](a-link.md)` and',
      '```',
      '[nor](this.md)',
      '```',
      '[![badge](img.svg)](https://example.com) [same file](#top)',
    ].join('\n')
    expect(linkTargets(text)).toEqual(['docs/proxy.md#layout', 'docs/screenshots/gate.png', 'img.svg', 'https://example.com', '#top'])
  })
})

describe('relative links resolve', () => {
  test('the documents checked include the architecture map', () => {
    expect(documents()).toContain('docs/architecture.md')
  })

  test.each(documents())('%s', (document) => {
    expect(brokenLinks(document)).toEqual([])
  })
})
