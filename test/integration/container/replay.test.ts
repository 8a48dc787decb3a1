/**
 * No Docker engine runs here, so the images are never built. Instead the
 * Dockerfile's own steps are replayed on this machine's shell (see
 * test/container/replay-dockerfile.ts), and each target is then started the
 * way its image would start it: ENTRYPOINT in WORKDIR with the image's ENV and
 * the environment compose.yaml gives it, checked with the image's own
 * HEALTHCHECK command, stopped with its STOPSIGNAL. PostgreSQL is real.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { interpolateDeep } from '../../container/compose-interpolation.ts'
import { freePort } from '../../support/ports.ts'
import {
  runHealthcheck,
  startContainer,
  waitHealthy,
  type RunningContainer,
} from '../../container/container-process.ts'
import {
  replayDockerfile,
  type ReplayedImage,
  type ReplayResult,
} from '../../container/replay-dockerfile.ts'

const REPO = join(import.meta.dir, '../../..')
/** A PostgreSQL role that may create databases; each run gets its own database. */
const ADMIN_URL =
  process.env['SVC_TEST_POSTGRES_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const DOTENV = { SVC_APP_API_KEY: 'container-test-key-0123456789', POSTGRES_PASSWORD: 'unused' }
const HEALTHY_WITHIN_MS = 15_000

const compose = interpolateDeep(
  Bun.YAML.parse(await Bun.file(join(REPO, 'compose.yaml')).text()),
  DOTENV,
) as {
  services: Record<string, { environment?: Record<string, string> }>
}
/** A service's environment from compose.yaml, with the given values replaced. */
const composeEnv = (service: string, overrides: Record<string, string>) => ({
  ...compose.services[service]!.environment,
  ...overrides,
})

/**
 * Components land one by one: a test needing a component whose entry module
 * (as src/main.ts names it) does not exist yet is skipped, and says so. Once
 * the file exists, any failure is a failure.
 */
async function unresolved(component: string): Promise<string[]> {
  const main = await Bun.file(join(REPO, 'src/main.ts')).text()
  const m = new RegExp(`\\b${component}: \\(\\) => import\\('\\./([^']+)'\\)`).exec(main)
  if (!m) return [`src/main.ts has no ${component} entry`]
  return existsSync(join(REPO, 'src', m[1]!)) ? [] : [`src/${m[1]} does not exist yet`]
}
const missing = {
  api: await unresolved('api'),
  proxy: await unresolved('proxy'),
  hub: await unresolved('hub'),
  migrate: await unresolved('migrate'),
}
const pending = (...names: (keyof typeof missing)[]) => names.flatMap((n) => missing[n]).join('; ')
const label = (name: string, ...needs: (keyof typeof missing)[]) =>
  pending(...needs) ? `${name} (skipped: ${pending(...needs)})` : name

let workDir: string
let home: string
let result: ReplayResult
const image = (target: string): ReplayedImage => result.images.get(target)!
const running = new Set<RunningContainer>()
const run = (target: string, env: Record<string, string>) => {
  const c = startContainer(image(target), home, env)
  running.add(c)
  return c
}

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'svc-container-test-'))
  home = join(workDir, 'home')
  await mkdir(home)
  result = await replayDockerfile({
    repoDir: REPO,
    workDir,
    targets: ['migrator', 'proxy', 'hub', 'api'],
  })
}, 60_000)

afterAll(async () => {
  await Promise.all([...running].map((c) => c.stop(5_000)))
  // Tens of thousands of hard links: deleting them takes seconds on some disks.
  if (workDir) await rm(workDir, { recursive: true, force: true })
}, 30_000)

describe('Dockerfile build steps, replayed on a plain shell', () => {
  test('the build context is the allowlist: sources, lockfile, migrations, no secrets or builds', () => {
    expect(result.contextFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'bun.lock',
        'tsconfig.json',
        'src/main.ts',
        'hub/index.html',
      ]),
    )
    expect(result.contextFiles.some((f) => f.startsWith('sql/') && f.endsWith('.sql'))).toBe(true)
    expect(
      result.contextFiles.filter((f) => /(^|\/)(\.env|node_modules|dist|\.git)(\/|$|\.)/.test(f)),
    ).toEqual([])
    expect(result.contextFiles.filter((f) => /^(test|docs|\.ci)\//.test(f))).toEqual([])
  })

  test('every RUN step ran: the frozen production install and the hub build', () => {
    const commands = result.steps.map((s) => s.command)
    expect(commands.some((c) => c.startsWith('bun install --frozen-lockfile --production'))).toBe(
      true,
    )
    expect(commands.some((c) => c.includes('buildHub('))).toBe(true)
  })

  test('the images carry production dependencies only', async () => {
    const modules = await readdir(join(image('api').cwd, 'node_modules'))
    expect(modules).toEqual(
      expect.arrayContaining(['elysia', 'postgres', 'arktype', '@electric-sql', 'swagger-ui-dist']),
    )
    for (const dev of [
      'typescript',
      'fast-check',
      'playwright-core',
      'rfc6902',
      '@types',
      'bun-types',
    ])
      expect(modules).not.toContain(dev)
  })

  test('every package src/ imports resolves from the production install', async () => {
    // Catches a runtime import of a devDependency even in code no test below starts.
    const transpiler = new Bun.Transpiler({ loader: 'ts' })
    const packages = new Set<string>()
    const src = join(image('api').cwd, 'src')
    for await (const file of new Bun.Glob('**/*.ts').scan(src)) {
      for (const { path } of transpiler.scanImports(await Bun.file(join(src, file)).text())) {
        if (!/^(\.|node:|bun:|bun$)/.test(path)) packages.add(path)
      }
    }
    expect(packages.size).toBeGreaterThan(0)
    const unresolvable = [...packages].filter((spec) => {
      try {
        Bun.resolveSync(spec, src)
        return false
      } catch {
        return true
      }
    })
    expect(unresolvable).toEqual([])
  })

  test('only the migrator image has sql/, only the hub image has the built hub', () => {
    for (const target of ['api', 'proxy', 'hub', 'migrator']) {
      const cwd = image(target).cwd
      expect(`${target} sql: ${existsSync(join(cwd, 'sql'))}`).toBe(
        `${target} sql: ${target === 'migrator'}`,
      )
      expect(`${target} hub: ${existsSync(join(cwd, 'hub/dist/index.html'))}`).toBe(
        `${target} hub: ${target === 'hub'}`,
      )
    }
    // No sources: the hub server can serve the build but never rebuild it.
    expect(existsSync(join(image('hub').cwd, 'hub/src'))).toBe(false)
  })

  test('the hub in the image is a production build of the same sources with every input in place', async () => {
    const shipped = await Bun.file(join(image('hub').cwd, 'hub/dist/index.html')).text()
    const script = /src="(\/assets\/main-[^"]+\.js)"/.exec(shipped)?.[1]
    expect(script).toBeDefined()
    // Lit's development build announces itself; the production one does not.
    const bundle = await Bun.file(join(image('hub').cwd, 'hub/dist', script!)).text()
    expect(bundle.includes('Lit is in dev mode')).toBe(false)

    // The reference: the context's snapshot of hub/ (the working tree may have
    // moved on), laid out as in the stage (hashes depend on relative paths),
    // with src/ (pure modules the page imports), tsconfig.json (decorator
    // semantics) and NODE_ENV=production.
    const ref = join(workDir, 'reference/app')
    await mkdir(ref, { recursive: true })
    for (const [from, to] of [
      [join(workDir, 'context/hub'), 'hub'],
      // The page bundles a few pure modules of src/ (the duration parser).
      [join(workDir, 'context/src'), 'src'],
      [join(workDir, 'context/tsconfig.json'), 'tsconfig.json'],
      [join(image('hub').cwd, 'node_modules'), 'node_modules'],
    ] as const) {
      expect(Bun.spawnSync(['cp', '-al', from, join(ref, to)]).exitCode).toBe(0)
    }
    const build = Bun.spawnSync(
      [
        process.execPath,
        '-e',
        `import { buildHub } from ${JSON.stringify(join(REPO, 'src/hub-server/build-hub.ts'))}; console.log((await buildHub({ sourceDir: ${JSON.stringify(join(ref, 'hub'))}, outDir: 'hub/dist' })).script)`,
      ],
      { cwd: ref, env: { PATH: process.env['PATH'] ?? '', HOME: home, NODE_ENV: 'production' } },
    )
    expect(build.exitCode).toBe(0)
    expect(build.stdout.toString().trim()).toBe(script!)
  }, 20_000)
})

describe('the images started as their ENTRYPOINT, HEALTHCHECK and STOPSIGNAL say', () => {
  let admin: postgres.Sql | undefined
  let dbName = ''
  let databaseUrl = ''
  let api: { container: RunningContainer; url: string; env: Record<string, string> } | undefined

  beforeAll(async () => {
    if (pending('migrate', 'api')) return
    admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} })
    dbName = `svc_container_${process.pid}_${Date.now()}`
    await admin.unsafe(`CREATE DATABASE ${dbName}`)
    const url = new URL(ADMIN_URL)
    url.pathname = `/${dbName}`
    databaseUrl = url.toString()
  }, 20_000)

  afterAll(async () => {
    if (!admin) return
    if (api) await api.container.stop(5_000)
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
    await admin.end()
  })

  test.skipIf(!!pending('migrate'))(
    label(
      'migrator: applies sql/ to a fresh PostgreSQL and exits 0; a second run is a no-op',
      'migrate',
    ),
    async () => {
      for (const attempt of [1, 2]) {
        const migrator = run(
          'migrator',
          composeEnv('migrator', { SVC_APP_DATABASE_URL: databaseUrl }),
        )
        const exit = await migrator.exited(30_000)
        expect(`run ${attempt}: ${exit.code}\n${migrator.output()}`).toBe(
          `run ${attempt}: 0\n${migrator.output()}`,
        )
      }
      const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
      try {
        const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM gates`
        expect(row).toEqual({ n: 0 })
      } finally {
        await sql.end()
      }
    },
    40_000,
  )

  test.skipIf(!!pending('migrate', 'api'))(
    label('api: healthy by its own HEALTHCHECK on the migrated database', 'migrate', 'api'),
    async () => {
      const port = freePort()
      const env = composeEnv('api', {
        SVC_APP_DATABASE_URL: databaseUrl,
        SVC_APP_PORT: String(port),
      })
      const container = run('api', env)
      api = { container, url: `http://127.0.0.1:${port}`, env }
      expect(await waitHealthy(image('api'), home, env, HEALTHY_WITHIN_MS)).toBe(0)
      const res = await fetch(`${api.url}/config`, {
        headers: { authorization: `Bearer ${DOTENV.SVC_APP_API_KEY}` },
      })
      expect(res.status).toBe(200)
      // compose.yaml's default retention reaches the API.
      expect(await res.json()).toEqual({ data: { retention: '720h' } })
    },
    30_000,
  )

  test.skipIf(!!pending('proxy'))(
    label(
      'proxy: before a gate id is set (compose step 3) it refuses to start, naming the variable',
      'proxy',
    ),
    async () => {
      const proxy = run(
        'proxy',
        composeEnv('proxy', {
          SVC_APP_API_URL: 'http://127.0.0.1:9',
          SVC_APP_PORT: String(freePort()),
          SVC_APP_ADMIN_PORT: String(freePort()),
        }),
      )
      const exit = await proxy.exited(10_000)
      expect(exit.code).toBe(1)
      expect(proxy.output()).toContain('SVC_APP_GATE_ID')
    },
    15_000,
  )

  test.skipIf(!!pending('migrate', 'api', 'proxy'))(
    label(
      'proxy: in API mode, healthy by its HEALTHCHECK, forwards live and reports to the API',
      'migrate',
      'api',
      'proxy',
    ),
    async () => {
      expect(api).toBeDefined()
      const live = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: () => Response.json({ from: 'live', n: 1 }),
      })
      const shadow = Bun.serve({
        hostname: '127.0.0.1',
        port: 0,
        fetch: () => Response.json({ from: 'shadow', n: 1 }),
      })
      try {
        const auth = {
          authorization: `Bearer ${DOTENV.SVC_APP_API_KEY}`,
          'content-type': 'application/json',
        }
        const created = await fetch(`${api!.url}/gates`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            name: 'container-replay',
            live_url: live.url.href.replace(/\/$/, ''),
            shadow_url: shadow.url.href.replace(/\/$/, ''),
          }),
        })
        expect(created.status).toBe(201)
        const gateId = ((await created.json()) as { data: { id: string } }).data.id
        const [port, adminPort] = [freePort(), freePort()]
        const env = composeEnv('proxy', {
          SVC_APP_API_URL: api!.url,
          SVC_APP_GATE_ID: gateId,
          SVC_APP_PORT: String(port),
          SVC_APP_ADMIN_PORT: String(adminPort),
        })
        const proxy = run('proxy', env)
        expect(await waitHealthy(image('proxy'), home, env, HEALTHY_WITHIN_MS)).toBe(0)

        const res = await fetch(`http://127.0.0.1:${port}/items?x=1`)
        expect(await res.json()).toEqual({ from: 'live', n: 1 })
        let captured = 0
        for (
          const deadline = Date.now() + 10_000;
          captured === 0 && Date.now() < deadline;
          await Bun.sleep(100)
        ) {
          const list = await fetch(`${api!.url}/gates/${gateId}/requests`, { headers: auth })
          captured = ((await list.json()) as { data: unknown[] }).data.length
        }
        expect(captured).toBe(1)

        const exit = await proxy.stop()
        expect({ code: exit.code, signal: exit.signal, killed: exit.killed }).toEqual({
          code: 0,
          signal: null,
          killed: false,
        })
        expect(await runHealthcheck(image('proxy'), home, env)).not.toBe(0)
      } finally {
        await Promise.all([live.stop(true), shadow.stop(true)])
      }
    },
    40_000,
  )

  test.skipIf(!!pending('migrate', 'api'))(
    label(
      'api: exits 0 on SIGTERM (so it stops as PID 1, too); then its HEALTHCHECK fails',
      'migrate',
      'api',
    ),
    async () => {
      expect(api).toBeDefined()
      const exit = await api!.container.stop()
      expect({ code: exit.code, signal: exit.signal, killed: exit.killed }).toEqual({
        code: 0,
        signal: null,
        killed: false,
      })
      expect(await runHealthcheck(image('api'), home, api!.env)).not.toBe(0)
    },
    20_000,
  )

  test.skipIf(!!pending('hub'))(
    label(
      'hub: healthy by its HEALTHCHECK, serves the shipped build with /config.js from its environment, exits 0 on SIGTERM',
      'hub',
    ),
    async () => {
      const port = freePort()
      const env = composeEnv('hub', { SVC_APP_PORT: String(port) })
      const hub = run('hub', env)
      expect(await waitHealthy(image('hub'), home, env, HEALTHY_WITHIN_MS)).toBe(0)

      const config = await (await fetch(`http://127.0.0.1:${port}/config.js`)).text()
      expect(config).toContain(JSON.stringify(env['SVC_APP_API_BASE_URL']))
      expect(config).toContain(JSON.stringify(DOTENV.SVC_APP_API_KEY))
      const index = await (await fetch(`http://127.0.0.1:${port}/`)).text()
      const shipped = await Bun.file(join(image('hub').cwd, 'hub/dist/index.html')).text()
      expect(index).toBe(shipped)

      const exit = await hub.stop()
      expect({ code: exit.code, signal: exit.signal, killed: exit.killed }).toEqual({
        code: 0,
        signal: null,
        killed: false,
      })
      expect(await runHealthcheck(image('hub'), home, env)).not.toBe(0)
    },
    30_000,
  )
})
