/**
 * The proxy's layers (docs/proxy.md "Layout") depend one way only: policy
 * knows no other layer, the upstream layer knows policy, the sinks know
 * both, the pipeline all three, the server the pipeline, and the wiring in
 * `src/proxy/` itself everything. `src/config/` reads the policy layer
 * only. Read from the sources' import lines, type-only imports included: a
 * type import is still a dependency a reader has to follow. No two files
 * of the proxy load each other, even through others; within a layer a file
 * may name another's type that loads it (a pipeline stage takes the
 * request's PendingComparison, which calls the stages).
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

/**
 * The files a source imports or re-exports from, resolved; packages left
 * out. `loaded`: only what is loaded at run time, not `import type`.
 */
function importsOf(file: string, loaded = false): string[] {
  const text = readFileSync(file, 'utf8')
  const statements = [...text.matchAll(/^\s*(?:import|export)\b([^'"]*?)(?:from\s+)?['"]([^'"]+)['"]/gm)]
  return statements
    .filter((m) => m[2]!.startsWith('.') && !(loaded && /^\s*type\b/.test(m[1]!)))
    .map((m) => resolve(dirname(file), m[2]!))
}

/** The proxy layer a file of src/proxy/ is in; undefined outside it. */
function layerOf(file: string): Layer | undefined {
  const path = relative(PROXY, file)
  if (path.startsWith('..')) return undefined
  const folder = path.includes('/') ? path.slice(0, path.indexOf('/')) : 'wiring'
  if (!(LAYERS as readonly string[]).includes(folder)) throw new Error(`${path}: a folder of src/proxy/ that is no layer`)
  return folder as Layer
}

/** The import cycles among `files` (each found once per the file it closes on), as paths from src/proxy/. */
function cyclesAmong(files: string[], loaded: boolean): string[] {
  const included = new Set(files)
  const edges = new Map(files.map((file) => [file, importsOf(file, loaded).filter((target) => included.has(target))]))
  const cycles: string[] = []
  // Depth-first, colouring: a file met again while still on the path closes a cycle.
  const state = new Map<string, 'open' | 'done'>()
  const path: string[] = []
  const visit = (file: string) => {
    state.set(file, 'open')
    path.push(file)
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push(path.slice(path.indexOf(next)).concat(next).map((f) => relative(PROXY, f)).join(' -> '))
      else if (state.get(next) === undefined) visit(next)
    }
    path.pop()
    state.set(file, 'done')
  }
  for (const file of files) if (state.get(file) === undefined) visit(file)
  return cycles
}

const proxyFiles = sourcesUnder(PROXY)

describe('the proxy layers', () => {
  test('every file is in a layer, and the layers hold files', () => {
    const layers = new Set(proxyFiles.map(layerOf))
    expect([...layers].sort()).toEqual([...LAYERS].sort())
  })

  test.each(LAYERS.map((layer) => [layer]))('%s imports only from the layers below it and itself', (layer) => {
    const rank = LAYERS.indexOf(layer)
    const upward = proxyFiles
      .filter((file) => layerOf(file) === layer)
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => {
            const targetLayer = layerOf(target)
            return targetLayer !== undefined && LAYERS.indexOf(targetLayer) > rank
          })
          .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
      )
    expect(upward).toEqual([])
  })

  test('src/config/ imports from the proxy only its policy layer', () => {
    const reaching = sourcesUnder(join(SRC, 'config')).flatMap((file) =>
      importsOf(file)
        .filter((target) => {
          const layer = layerOf(target)
          return layer !== undefined && layer !== 'policy'
        })
        .map((target) => `${relative(SRC, file)} -> ${relative(SRC, target)}`),
    )
    expect(reaching).toEqual([])
  })

  test('no cycle among the proxy files in what they load', () => {
    expect(cyclesAmong(proxyFiles, true)).toEqual([])
  })

  test('outside the pipeline, no cycle even through type imports', () => {
    expect(cyclesAmong(proxyFiles.filter((file) => layerOf(file) !== 'pipeline'), false)).toEqual([])
  })

  test('the import reader sees type imports, and tells them from what is loaded', () => {
    // The checks above pass on an empty list, so the reader itself is held to known files.
    const handler = join(PROXY, 'pipeline/shadow-handler.ts')
    const layers = new Set(importsOf(handler).map(layerOf))
    expect(layers.has('policy')).toBe(true)
    expect(layers.has('upstream')).toBe(true)
    // collect.ts names PendingComparison as a type only; pending-comparison.ts loads collect.ts.
    const pending = join(PROXY, 'pipeline/pending-comparison.ts')
    const collect = join(PROXY, 'pipeline/collect.ts')
    expect(importsOf(collect)).toContain(pending)
    expect(importsOf(collect, true)).not.toContain(pending)
    expect(importsOf(pending, true)).toContain(collect)
  })
})
