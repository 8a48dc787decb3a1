import { cp, mkdir, readdir, rename, rm, stat } from 'node:fs/promises'
import { basename, dirname, join, relative, resolve } from 'node:path'

/** The hub's sources: `<repo>/hub`. */
export const HUB_SOURCE_DIR = resolve(import.meta.dir, '../../hub')
/** Where `bun run hub` builds to by default (git-ignored). */
export const DEFAULT_DIST_DIR = join(HUB_SOURCE_DIR, 'dist')

/** Hashed files live here and are cached forever (their name changes with their content). */
export const ASSETS_PREFIX = '/assets/'

export interface BuildHubOptions {
  /** Directory to write; replaced as a whole once the new build is complete. */
  readonly outDir: string
  /**
   * Extra Bun.build `define` entries (identifier → JS expression text). The
   * development build inlines its settings this way; see `viteDefine`.
   * @default VITE_API_BASE_URL and VITE_API_KEY as empty strings
   */
  readonly define?: Readonly<Record<string, string>>
  /** @default HUB_SOURCE_DIR */
  readonly sourceDir?: string
  /** @default true */
  readonly minify?: boolean
}

export interface BuildHubResult {
  readonly outDir: string
  /** URL paths of the hashed entry files, as index.html references them. */
  readonly script: string
  readonly stylesheet: string
  /** Every file written, relative to outDir. */
  readonly files: readonly string[]
}

/**
 * The `define` entries of a development build (docs/reference/configuration.md
 * "Hub": VITE_API_BASE_URL and VITE_API_KEY, inlined at build time). The caller
 * reads them from the environment (src/config/); this only quotes them. A key
 * compiled in is readable by whoever loads the page.
 */
export function viteDefine(values: { readonly apiBaseUrl?: string; readonly apiKey?: string }): Record<string, string> {
  return {
    'process.env.VITE_API_BASE_URL': JSON.stringify(values.apiBaseUrl ?? ''),
    'process.env.VITE_API_KEY': JSON.stringify(values.apiKey ?? ''),
  }
}

/** Types worth compressing ahead of time; the server sends the .gz when accepted. */
const COMPRESSIBLE = /\.(js|css|html|svg|map|json)$/

/**
 * Builds the hub with Bun's bundler: the app and its stylesheet get
 * content-hashed names under `assets/`, minified, with linked source maps;
 * index.html is written from the template with those names; compressible
 * files get a `.gz` sibling. The build happens in a staging directory that
 * replaces `outDir` at the end, so a server never sees half a build.
 */
export async function buildHub(options: BuildHubOptions): Promise<BuildHubResult> {
  const sourceDir = options.sourceDir ?? HUB_SOURCE_DIR
  const outDir = resolve(options.outDir)
  const staging = `${outDir}.staging-${process.pid}-${Date.now()}`
  await mkdir(dirname(outDir), { recursive: true })
  try {
    const result = await Bun.build({
      entrypoints: [join(sourceDir, 'src/main.ts'), join(sourceDir, 'src/styles/global.css')],
      outdir: join(staging, 'assets'),
      target: 'browser',
      format: 'esm',
      minify: options.minify ?? true,
      sourcemap: 'linked',
      naming: { entry: '[name]-[hash].[ext]', chunk: '[name]-[hash].[ext]', asset: '[name]-[hash].[ext]' },
      // Lit ships a dev-mode build under the "development" export condition,
      // which Bun picks unless NODE_ENV says production: the hub is always a
      // production build, whoever starts it.
      conditions: ['production'],
      define: { 'process.env.NODE_ENV': JSON.stringify('production'), ...viteDefine({}), ...options.define },
    })
    if (!result.success) {
      throw new AggregateError(result.logs, `hub build failed: ${result.logs.map(String).join('\n')}`)
    }
    const entry = (ext: string) => {
      // Bun reports a CSS entry point as an "asset"; match on the extension.
      const out = result.outputs.find((o) => o.kind !== 'sourcemap' && o.path.endsWith(ext))
      if (!out) throw new Error(`hub build produced no ${ext} entry`)
      return ASSETS_PREFIX + basename(out.path)
    }
    const script = entry('.js')
    const stylesheet = entry('.css')

    const template = await Bun.file(join(sourceDir, 'index.html')).text()
    const index = template.replace('%SCRIPT%', script).replace('%STYLES%', stylesheet)
    if (index.includes('%SCRIPT%') || index.includes('%STYLES%')) throw new Error('index.html template is malformed')
    await Bun.write(join(staging, 'index.html'), index)
    await cp(join(sourceDir, 'favicon.svg'), join(staging, 'favicon.svg'))

    const files = await listFiles(staging)
    for (const f of files) {
      if (COMPRESSIBLE.test(f)) await Bun.write(join(staging, `${f}.gz`), Bun.gzipSync(await Bun.file(join(staging, f)).bytes()))
    }
    const fingerprint = await buildFingerprint(options.define, sourceDir)
    if (fingerprint !== undefined) await Bun.write(join(staging, FINGERPRINT_FILE), fingerprint)

    await replaceDir(staging, outDir)
    return { outDir, script, stylesheet, files: await listFiles(outDir) }
  } finally {
    await rm(staging, { recursive: true, force: true })
  }
}

/** Written into a build: what it was made from (see buildFingerprint). A dotfile: never served. */
const FINGERPRINT_FILE = '.build-fingerprint'

/**
 * A digest of what a build is made of: the hub's sources, the lockfile
 * (the dependency versions) and the `define` values, hashed so that a key
 * compiled in does not also sit in clear beside the build. undefined when
 * the sources are not there (an image that carries the build only).
 */
export async function buildFingerprint(
  define: Readonly<Record<string, string>> = {},
  sourceDir: string = HUB_SOURCE_DIR,
): Promise<string | undefined> {
  const srcDir = join(sourceDir, 'src')
  try {
    if (!(await stat(srcDir)).isDirectory()) return undefined
  } catch {
    return undefined
  }
  const hash = new Bun.CryptoHasher('sha256')
  for (const file of await listFiles(srcDir)) hash.update(file).update(await Bun.file(join(srcDir, file)).bytes())
  for (const file of ['index.html', 'favicon.svg', '../bun.lock']) {
    const source = Bun.file(join(sourceDir, file))
    if (await source.exists()) hash.update(file).update(await source.bytes())
  }
  const values = { ...viteDefine({}), ...define }
  hash.update(JSON.stringify(Object.keys(values).sort().map((key) => [key, values[key]])))
  return hash.digest('hex')
}

/**
 * Whether the build in `dir` is missing or was made from other sources or
 * other `define` values than these: a hub started after a `git pull`, or
 * without the VITE_API_KEY an earlier build compiled in, must not serve
 * that build.
 */
export async function buildIsStale(dir: string, define: Readonly<Record<string, string>> = {}): Promise<'missing' | 'stale' | false> {
  if (!(await hasBuild(dir))) return 'missing'
  const wanted = await buildFingerprint(define)
  if (wanted === undefined) return false
  const file = Bun.file(join(dir, FINGERPRINT_FILE))
  return (await file.exists()) && (await file.text()) === wanted ? false : 'stale'
}

/** True when `dir` holds a build (index.html is written last, so it marks completion). */
export async function hasBuild(dir: string): Promise<boolean> {
  try {
    return (await stat(join(dir, 'index.html'))).isFile()
  } catch {
    return false
  }
}

async function replaceDir(from: string, to: string): Promise<void> {
  const old = `${to}.old-${process.pid}-${Date.now()}`
  let moved = false
  try {
    await rename(to, old)
    moved = true
  } catch {
    // No previous build.
  }
  await rename(from, to)
  if (moved) await rm(old, { recursive: true, force: true })
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort()
}
