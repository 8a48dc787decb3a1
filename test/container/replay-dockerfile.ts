/**
 * Replays the Dockerfile's stages on this machine's plain shell, without a
 * Docker engine: the build context is the repository filtered through
 * .dockerignore, each stage gets a directory standing for its filesystem,
 * COPY copies into it, RUN runs under `/bin/sh -c` in its WORKDIR. The Bun
 * binary of the base images is this machine's Bun (the one difference, and
 * the reason the Dockerfile's BUN_VERSION must match it).
 *
 * Run by hand: `bun test/container/replay-dockerfile.ts [target...]` keeps
 * the replayed tree and prints where it is.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join, resolve } from 'node:path'
import {
  execForm,
  imageConfig,
  parseDockerfile,
  parseKeyValues,
  resolveContainerPath,
  splitFlags,
  stageNamed,
  substitute,
  type Dockerfile,
  type ImageConfig,
  type Stage,
} from './dockerfile-parser.ts'
import { copyBuildContext, parseDockerignore } from './dockerignore.ts'

/** The path of Bun inside the official images; mapped to this machine's Bun. */
export const IMAGE_BUN = '/usr/local/bin/bun'

export interface ReplayOptions {
  readonly repoDir: string
  /** An empty directory the replay may fill. */
  readonly workDir: string
  /** The `--target`s to build; their stages and the stages they copy from. */
  readonly targets: readonly string[]
  /** @default 90_000 */
  readonly stepTimeoutMs?: number
  readonly log?: (line: string) => void
}

export interface ReplayedImage {
  readonly target: string
  /** The directory standing for the image's filesystem root. */
  readonly rootfs: string
  readonly config: ImageConfig
  /** rootfs + WORKDIR: where the container process starts. */
  readonly cwd: string
}

export interface StepRecord {
  readonly stage: string
  readonly line: number
  readonly command: string
  readonly ms: number
}

export interface ReplayResult {
  readonly file: Dockerfile
  readonly contextFiles: readonly string[]
  readonly images: ReadonlyMap<string, ReplayedImage>
  readonly steps: readonly StepRecord[]
}

/** Builds the targets' filesystems; throws on the first failing step. */
export async function replayDockerfile(options: ReplayOptions): Promise<ReplayResult> {
  const log = options.log ?? (() => {})
  const file = parseDockerfile(await Bun.file(join(options.repoDir, 'Dockerfile')).text())
  const rules = parseDockerignore(await Bun.file(join(options.repoDir, '.dockerignore')).text())
  const context = join(options.workDir, 'context')
  const contextFiles = await copyBuildContext(options.repoDir, context, rules)
  log(`context: ${contextFiles.length} files`)

  const needed = neededStages(file, options.targets)
  const roots = new Map<number, string>()
  const steps: StepRecord[] = []
  for (const stage of file.stages) {
    if (!needed.has(stage.index)) continue
    const label = stage.name ?? String(stage.index)
    const rootfs = join(options.workDir, 'stages', `${stage.index}-${label}`)
    await mkdir(dirname(rootfs), { recursive: true })
    if (stage.parent) await run(['cp', '-al', roots.get(stage.parent.index)!, rootfs], {})
    else await mkdir(rootfs)
    roots.set(stage.index, rootfs)
    log(`stage ${label} (FROM ${stage.base})`)

    const inherited = stage.parent ? imageConfig(stage.parent) : undefined
    let workdir = inherited?.workdir ?? '/'
    const vars: Record<string, string | undefined> = { ...inherited?.env }
    for (const ins of stage.instructions) {
      const args = ins.args
      switch (ins.keyword) {
        case 'WORKDIR':
          workdir = resolveContainerPath(workdir, substitute(args, vars))
          await mkdir(join(rootfs, workdir), { recursive: true })
          break
        case 'ENV':
          Object.assign(vars, parseKeyValues(substitute(args, vars)))
          break
        case 'ARG':
          for (const [k, v] of Object.entries(parseKeyValues(args, true)))
            vars[k] ??= v ?? file.globalArgs[k]
          break
        case 'COPY':
          await copyStep(args, { file, roots, context, rootfs, workdir, vars })
          break
        case 'RUN': {
          const started = performance.now()
          const command = await runStep(args, {
            cwd: join(rootfs, workdir),
            workdir,
            vars,
            timeoutMs: options.stepTimeoutMs ?? 90_000,
          })
          const ms = Math.round(performance.now() - started)
          steps.push({ stage: label, line: ins.line, command, ms })
          log(`  RUN (line ${ins.line}, ${ms} ms) ${command}`)
          break
        }
        case 'ADD':
        case 'SHELL':
        case 'ONBUILD':
        case 'VOLUME':
          throw new Error(`line ${ins.line}: ${ins.keyword} is not replayable here; use COPY/RUN`)
        default:
        // USER, EXPOSE, HEALTHCHECK, ENTRYPOINT, CMD, STOPSIGNAL, LABEL: image config only.
      }
    }
  }

  const images = new Map<string, ReplayedImage>()
  for (const target of options.targets) {
    const stage = stageNamed(file, target)
    const config = imageConfig(stage)
    const rootfs = roots.get(stage.index)!
    images.set(target, { target, rootfs, config, cwd: join(rootfs, config.workdir) })
  }
  return { file, contextFiles, images, steps }
}

/** The targets' stages plus every stage they build on or copy from. */
function neededStages(file: Dockerfile, targets: readonly string[]): Set<number> {
  const needed = new Set<number>()
  const visit = (stage: Stage) => {
    if (needed.has(stage.index)) return
    needed.add(stage.index)
    if (stage.parent) visit(stage.parent)
    for (const ins of stage.instructions) {
      const from = ins.keyword === 'COPY' ? splitFlags(ins.args).flags['from'] : undefined
      if (from) visit(stageNamed(file, from.toLowerCase()))
    }
  }
  for (const t of targets) visit(stageNamed(file, t))
  return needed
}

interface CopyScope {
  readonly file: Dockerfile
  readonly roots: ReadonlyMap<number, string>
  readonly context: string
  readonly rootfs: string
  readonly workdir: string
  readonly vars: Readonly<Record<string, string | undefined>>
}

/** COPY [--from=stage] src... dest: directories copy their contents, as Docker does. */
async function copyStep(args: string, scope: CopyScope): Promise<void> {
  const { flags, rest } = splitFlags(args)
  const parts = (execForm(rest) ?? rest.split(/\s+/)).map((p) => substitute(p, scope.vars))
  const dest = parts.pop()
  if (!dest || parts.length === 0) throw new Error(`COPY needs a source and a destination: ${args}`)
  let sourceRoot = scope.context
  if (flags['from']) {
    const from = stageNamed(scope.file, flags['from'].toLowerCase())
    const root = scope.roots.get(from.index)
    if (!root)
      throw new Error(`COPY --from=${flags['from']}: that stage was not built before this one`)
    sourceRoot = root
  }
  const destPath = resolveContainerPath(scope.workdir, dest)
  const intoDir = dest.endsWith('/') || parts.length > 1
  for (const src of parts) {
    if (/[*?[]/.test(src))
      throw new Error(`COPY ${src}: wildcards are not replayed; name the files`)
    const from = join(sourceRoot, resolveContainerPath('/', src))
    const info = await stat(from).catch(() => undefined)
    if (!info)
      throw new Error(
        `COPY ${src}: not found in ${flags['from'] ? `stage ${flags['from']}` : 'the build context'}`,
      )
    const isDir = info.isDirectory()
    const target = join(scope.rootfs, intoDir && !isDir ? `${destPath}/${basename(src)}` : destPath)
    await mkdir(isDir ? target : dirname(target), { recursive: true })
    // Hard links: fast, and no step rewrites a copied file in place.
    await run(isDir ? ['cp', '-al', `${from}/.`, `${target}/`] : ['cp', '-l', from, target], {})
  }
}

interface RunScope {
  readonly cwd: string
  readonly workdir: string
  readonly vars: Readonly<Record<string, string | undefined>>
  readonly timeoutMs: number
}

/** RUN: shell form through /bin/sh -c, exec form as is; returns the command text. */
async function runStep(args: string, scope: RunScope): Promise<string> {
  const { flags, rest } = splitFlags(args)
  // A cache mount only speeds the real build up; any other mount changes what runs.
  if (flags['mount'] && !flags['mount'].startsWith('type=cache'))
    throw new Error(`RUN --mount=${flags['mount']} is not replayable`)
  const absolute = /(?:^|[\s'"=(])\/(?!dev\/null\b)[A-Za-z]/.exec(rest)
  if (absolute) throw new Error(`RUN uses an absolute path, which the replay cannot map: ${rest}`)
  const argv = execForm(rest) ?? ['/bin/sh', '-c', rest]
  const env: Record<string, string> = { ...hostEnv(), ...definedOnly(scope.vars) }
  await run(
    argv.map((a, i) => (i === 0 && a === IMAGE_BUN ? process.execPath : a)),
    { cwd: scope.cwd, env, timeoutMs: scope.timeoutMs },
  )
  return rest
}

/**
 * What a builder stage sees of this machine: PATH with this Bun first, HOME
 * (Bun's install cache stands in for the cache mount), and the network
 * settings bun install may need.
 */
function hostEnv(): Record<string, string> {
  const env: Record<string, string> = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: process.env['HOME'] ?? '/root',
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0',
  }
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v !== undefined &&
      /^(https?_proxy|no_proxy|npm_config_registry|bun_config_registry|ssl_cert_file|node_extra_ca_certs)$/i.test(
        k,
      )
    )
      env[k] = v
  }
  return env
}

function definedOnly(vars: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(vars).filter((e): e is [string, string] => e[1] !== undefined),
  )
}

async function run(
  argv: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<void> {
  const proc = Bun.spawn(argv, {
    cwd: opts.cwd,
    env: opts.env ?? hostEnv(),
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), opts.timeoutMs ?? 30_000)
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  clearTimeout(timer)
  if (code !== 0) {
    throw new Error(`${argv.join(' ')} exited ${code ?? proc.signalCode}\n${out}${err}`.trimEnd())
  }
}

if (import.meta.main) {
  const repoDir = resolve(import.meta.dir, '../..')
  const workDir = await mkdtemp(join(tmpdir(), 'svc-dockerfile-replay-'))
  const targets = process.argv.slice(2)
  try {
    const result = await replayDockerfile({
      repoDir,
      workDir,
      targets: targets.length > 0 ? targets : ['migrator', 'proxy', 'hub', 'api'],
      log: (line) => console.log(line),
    })
    for (const image of result.images.values()) console.log(`${image.target}: ${image.cwd}`)
    console.log(`replayed into ${workDir} (left in place for inspection)`)
  } catch (error) {
    console.error(String(error instanceof Error ? error.message : error))
    await rm(workDir, { recursive: true, force: true })
    process.exit(1)
  }
}
