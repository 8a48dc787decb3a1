/**
 * The proxy's layers (docs/proxy.md "Layout") depend one way only: each
 * layer imports only from those below it (policy, upstream, sinks,
 * pipeline, server, then the wiring in `src/proxy/` itself), and
 * `src/config/` only from the policy layer. Read from the sources' import
 * lines, type-only imports included: a type import is still a dependency
 * a reader has to follow. No import closes a loop, but for one kind: a
 * pipeline stage names the request's PendingComparison as a type, while
 * that object calls the stages.
 */
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const SRC = resolve(import.meta.dir, '../../../src')
const PROXY = join(SRC, 'proxy')
/** From the bottom up; the files directly in src/proxy/ are the wiring, on top. */
const LAYERS = ['policy', 'upstream', 'sinks', 'pipeline', 'server', 'wiring'] as const
type Layer = (typeof LAYERS)[number]

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(dir, name))
}

interface Import {
  readonly target: string
  /** `import type` / `export type`: erased at run time. */
  readonly typeOnly: boolean
}

/** `import ... from`, `export ... from` (over several lines too) and a bare `import '...'`. */
const IMPORT_LINE = /^[ \t]*(?:import|export)\s+(type\s+)?[\w$\s{},*]*?\s*from\s*['"]([^'"]+)['"]|^[ \t]*import\s*['"]([^'"]+)['"]/gm

/** The files a source imports or re-exports from, resolved; packages left out. */
function importsOf(file: string): Import[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT_LINE)]
    .map((m) => ({ specifier: (m[2] ?? m[3])!, typeOnly: m[1] !== undefined }))
    .filter(({ specifier }) => specifier.startsWith('.'))
    .map(({ specifier, typeOnly }) => ({ target: resolve(dirname(file), specifier), typeOnly }))
}

/** Each import of `files` that `breaks` says is out of place, as `from -> to` under src/. */
function importsBreaking(files: string[], breaks: (target: string) => boolean): string[] {
  return files.flatMap((file) =>
    importsOf(file)
      .filter(({ target }) => breaks(target))
      .map(({ target }) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
  )
}

/** The proxy layer a file of src/proxy/ is in; undefined outside it. */
function layerOf(file: string): Layer | undefined {
  const path = relative(PROXY, file)
  if (path.startsWith('..')) return undefined
  const folder = path.includes('/') ? path.slice(0, path.indexOf('/')) : 'wiring'
  if (!(LAYERS as readonly string[]).includes(folder)) throw new Error(`${path}: a folder of src/proxy/ that is no layer`)
  return folder as Layer
}

/**
 * Import loops among `files` over the imports `counts` keeps, as paths
 * from src/proxy/: one per back edge a depth-first search meets, so the
 * list is empty exactly when there is no loop.
 */
function loopsAmong(files: string[], counts: (i: Import) => boolean): string[] {
  const included = new Set(files)
  const edges = new Map(files.map((file) => [file, importsOf(file).filter((i) => included.has(i.target) && counts(i)).map((i) => i.target)]))
  const loops: string[] = []
  // Colouring: a file met again while still on the path closes a loop.
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    path.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') loops.push(path.slice(path.indexOf(next)).concat(next).map((f) => relative(PROXY, f)).join(' -> '))
      else if (state.get(next) === undefined) visit(next)
    }
    path.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (state.get(file) === undefined) visit(file)
  return loops
}

const PENDING_COMPARISON = join(PROXY, 'pipeline/pending-comparison.ts')
const proxyFiles = sourcesUnder(PROXY)

describe('the proxy layers', () => {
  test('every file is in a layer, and the layers hold files', () => {
    const layers = new Set(proxyFiles.map(layerOf))
    expect([...layers].sort()).toEqual([...LAYERS].sort())
  })

  test.each(LAYERS.map((layer) => [layer]))('%s imports only from the layers below it and itself', (layer) => {
    const rank = LAYERS.indexOf(layer)
    const above = (to: string) => {
      const target = layerOf(to)
      return target !== undefined && LAYERS.indexOf(target) > rank
    }
    expect(importsBreaking(proxyFiles.filter((file) => layerOf(file) === layer), above)).toEqual([])
  })

  test('src/config/ imports from the proxy only its policy layer', () => {
    const pastPolicy = (to: string) => {
      const target = layerOf(to)
      return target !== undefined && target !== 'policy'
    }
    expect(importsBreaking(sourcesUnder(join(SRC, 'config')), pastPolicy)).toEqual([])
  })

  test('no import loop, but for a stage naming PendingComparison as a type', () => {
    expect(loopsAmong(proxyFiles, (i) => !(i.typeOnly && i.target === PENDING_COMPARISON))).toEqual([])
  })

  test('that one kind of loop is there, and is of types only', () => {
    // Without the exception the search finds loops (so it searches); what it leaves out is erased at run time.
    expect(loopsAmong(proxyFiles, () => true).length).toBeGreaterThan(0)
    expect(loopsAmong(proxyFiles, (i) => !i.typeOnly)).toEqual([])
  })

  test('the import reader sees type imports and re-exports, and no other line', () => {
    // The checks above pass on an empty list, so the reader itself is held to known files.
    const handler = join(PROXY, 'pipeline/shadow-handler.ts')
    const layers = new Set(importsOf(handler).map((i) => layerOf(i.target)))
    expect(layers.has('policy')).toBe(true)
    expect(layers.has('upstream')).toBe(true)
    const collect = importsOf(join(PROXY, 'pipeline/collect.ts'))
    expect(collect).toContainEqual({ target: PENDING_COMPARISON, typeOnly: true })
    expect(importsOf(PENDING_COMPARISON)).toContainEqual({ target: join(PROXY, 'pipeline/collect.ts'), typeOnly: false })
    expect(importsOf(join(PROXY, 'index.ts')).length).toBeGreaterThan(3)
    // `join(cwd, '.env')` on an `export function` line is no import.
    expect(importsOf(join(SRC, 'config/environment.ts')).map((i) => i.target)).not.toContain(join(SRC, 'config/.env'))
  })
})
