import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import {
  execForm,
  imageConfig,
  parseDockerfile,
  rootOf,
  splitFlags,
  stageNamed,
} from '../../container/dockerfile-parser.ts'
import { isIgnored, parseDockerignore } from '../../container/dockerignore.ts'
import { IMAGE_BUN } from '../../container/replay-dockerfile.ts'
import { SERVER_RUNTIME_ENV } from '../../../src/workers/server-runtime.ts'

const REPO = join(import.meta.dir, '../../..')
const file = parseDockerfile(await Bun.file(join(REPO, 'Dockerfile')).text())
const ignore = parseDockerignore(await Bun.file(join(REPO, '.dockerignore')).text())

/**
 * What each image must offer (docs/containers.md: the default ports and
 * health checks of each component, the hub's 8070 and `/health` included).
 */
const TARGETS = {
  api: {
    component: 'api',
    ports: [8090],
    health: { path: '/health/ready', portVar: 'SVC_APP_PORT', port: 8090 },
  },
  proxy: {
    component: 'proxy',
    ports: [8080, 8081],
    health: { path: '/health/ready', portVar: 'SVC_APP_ADMIN_PORT', port: 8081 },
  },
  hub: {
    component: 'hub',
    ports: [8070],
    health: { path: '/health', portVar: 'SVC_APP_PORT', port: 8070 },
  },
  migrator: { component: 'migrate', ports: [], health: undefined },
} as const
type Target = keyof typeof TARGETS
const TARGET_NAMES = Object.keys(TARGETS) as Target[]

const external = file.stages.filter((s) => !s.parent)
const targetStages = TARGET_NAMES.map((t) => stageNamed(file, t))

describe('Dockerfile targets', () => {
  test('defines api, proxy, hub and migrator', () => {
    expect(file.stages.map((s) => s.name)).toEqual(expect.arrayContaining([...TARGET_NAMES]))
  })

  test.each(TARGET_NAMES)('%s runs as a numeric non-root user', (target) => {
    const { user } = imageConfig(stageNamed(file, target))
    expect(user).toBeDefined()
    const [uid, gid] = user!.split(':')
    // Numeric, so Kubernetes' runAsNonRoot can check it without /etc/passwd.
    expect(uid).toMatch(/^[1-9]\d*$/)
    if (gid !== undefined) expect(gid).toMatch(/^[1-9]\d*$/)
  })

  test.each(TARGET_NAMES)('%s exposes its default ports', (target) => {
    expect([...imageConfig(stageNamed(file, target)).expose].sort()).toEqual(
      [...TARGETS[target].ports].sort(),
    )
  })

  test.each(TARGET_NAMES)('%s starts `bun run src/main.ts <component>` in exec form', (target) => {
    const config = imageConfig(stageNamed(file, target))
    expect([...(config.entrypoint ?? []), ...(config.cmd ?? [])]).toEqual([
      IMAGE_BUN,
      'run',
      'src/main.ts',
      TARGETS[target].component,
    ])
    expect(config.workdir).toBe('/app')
  })

  test.each(TARGET_NAMES)('%s stops on SIGTERM and runs in production mode', (target) => {
    const config = imageConfig(stageNamed(file, target))
    expect(config.stopSignal).toBe('SIGTERM')
    expect(config.env['SVC_APP_APP_ENV']).toBe('production')
    // Bun.serve's development error pages are off only with NODE_ENV=production.
    expect(config.env['NODE_ENV']).toBe('production')
  })

  // A process an image starts is not always a supervised worker: the runtime reads these at its start (src/workers/server-runtime.ts).
  test.each(TARGET_NAMES)("%s keeps the JIT's compiled code through quiet spells", (target) => {
    const config = imageConfig(stageNamed(file, target))
    for (const [name, value] of Object.entries(SERVER_RUNTIME_ENV)) expect(config.env[name]).toBe(value)
  })

  test.each(TARGET_NAMES)(
    '%s has a HEALTHCHECK on its health endpoint, if it has one',
    (target) => {
      const { healthcheck } = imageConfig(stageNamed(file, target))
      const want = TARGETS[target].health
      if (!want) {
        expect(healthcheck).toBeUndefined()
        return
      }
      // Exec form with Bun itself: distroless has no shell, curl or wget.
      expect(healthcheck?.exec?.slice(0, 2)).toEqual([IMAGE_BUN, '-e'])
      expect(healthcheck?.exec).toHaveLength(3)
      const script = healthcheck!.exec![2]!
      expect(script).toContain(
        `'http://127.0.0.1:'+(process.env.${want.portVar}||'${want.port}')+'${want.path}'`,
      )
      expect(script).toContain('AbortSignal.timeout(')
      for (const flag of ['interval', 'timeout', 'start-period', 'retries'])
        expect(healthcheck!.flags[flag]).toBeDefined()
    },
  )

  test('the hub image carries the hub built at image build time, not its sources', () => {
    const copies = stageNamed(file, 'hub')
      .instructions.filter((i) => i.keyword === 'COPY')
      .map((i) => i.args)
    expect(copies).toContain('--from=hub-build /app/hub/dist ./hub/dist')
    expect(copies.some((c) => /^hub\b|\shub\/?\s/.test(c) && !c.includes('--from'))).toBe(false)
    const build = stageNamed(file, 'hub-build').instructions.find((i) => i.keyword === 'RUN')
    expect(build?.args).toContain('buildHub({ outDir: DEFAULT_DIST_DIR })')
  })

  test('only the migrator carries sql/', () => {
    for (const stage of targetStages) {
      const hasSql = stage.instructions.some(
        (i) => i.keyword === 'COPY' && /(^|\s)sql\b/.test(i.args),
      )
      expect(`${stage.name}: ${hasSql}`).toBe(`${stage.name}: ${stage.name === 'migrator'}`)
    }
  })
})

describe('Dockerfile base images and dependencies', () => {
  test('every external base is an official oven/bun image pinned to a full version', () => {
    for (const stage of external) {
      expect(stage.base).toMatch(/^oven\/bun:\d+\.\d+\.\d+-(slim|distroless)$/)
    }
  })

  test('no base image is :latest or untagged', () => {
    for (const stage of external) {
      expect(stage.base).not.toMatch(/:latest\b|^[^:]+$/)
    }
  })

  test('the final images are distroless; only builder stages RUN anything', () => {
    for (const stage of targetStages) expect(rootOf(stage).base).toEndWith('-distroless')
    for (const stage of file.stages) {
      if (!stage.instructions.some((i) => i.keyword === 'RUN')) continue
      expect(`${stage.name}: ${rootOf(stage).base}`).toMatch(/-slim$/)
    }
  })

  test('BUN_VERSION is the Bun the tests run on', () => {
    // The replay tests run the image's steps with this Bun; a different minor
    // version in the image would be untested.
    const [major, minor] = Bun.version.split('.')
    expect(file.globalArgs['BUN_VERSION']).toStartWith(`${major}.${minor}.`)
  })

  test('dependencies are installed from the lockfile, production only', () => {
    const run = stageNamed(file, 'deps').instructions.find((i) => i.keyword === 'RUN')
    expect(run?.args).toContain('bun install --frozen-lockfile --production')
    const copy = stageNamed(file, 'deps').instructions.find((i) => i.keyword === 'COPY')
    expect(copy?.args).toBe('package.json bun.lock bunfig.toml ./')
  })
})

/**
 * The checks of hadolint (https://github.com/hadolint/hadolint#rules) that
 * apply to this file, since hadolint itself is not installable here (see
 * docs/containers.md "Lint").
 */
describe('Dockerfile lint (hadolint rules, checked here)', () => {
  const all = file.stages.flatMap((s) => s.instructions.map((i) => ({ stage: s, ins: i })))

  test('DL3000: WORKDIR is absolute; DL3045: set before any relative COPY', () => {
    for (const stage of file.stages) {
      let workdir = stage.parent ? imageConfig(stage.parent).workdir : '/'
      for (const ins of stage.instructions) {
        if (ins.keyword === 'WORKDIR') {
          expect(ins.args).toStartWith('/')
          workdir = ins.args
        }
        if (ins.keyword === 'COPY') expect(`${ins.line}: ${workdir}`).not.toBe(`${ins.line}: /`)
      }
    }
  })

  test('DL3002: the last USER of every target is not root', () => {
    for (const stage of targetStages) expect(imageConfig(stage).user).not.toMatch(/^(root|0)(:|$)/)
  })

  test('DL3003, DL3004, DL4006: no cd, no sudo, pipes only with pipefail', () => {
    for (const { ins } of all.filter((x) => x.ins.keyword === 'RUN')) {
      expect(ins.args).not.toMatch(/(^|[;&|]\s*)cd\s/)
      expect(ins.args).not.toMatch(/\bsudo\b/)
      if (/[^|]\|[^|]/.test(ins.args.replace(/"[^"]*"|'[^']*'/g, '')))
        expect(ins.args).toContain('pipefail')
    }
  })

  test('DL3020, DL4000: COPY rather than ADD, no MAINTAINER', () => {
    expect(all.filter((x) => x.ins.keyword === 'ADD' || x.ins.keyword === 'MAINTAINER')).toEqual([])
  })

  test('DL3022, DL3024: stage names are unique and COPY --from names an earlier stage', () => {
    const names = file.stages.map((s) => s.name).filter((n) => n !== undefined)
    expect(new Set(names).size).toBe(names.length)
    for (const { stage, ins } of all.filter((x) => x.ins.keyword === 'COPY')) {
      const from = splitFlags(ins.args).flags['from']
      if (from) expect(stageNamed(file, from).index).toBeLessThan(stage.index)
    }
  })

  test('DL3025, DL4003, DL4004: ENTRYPOINT and CMD in JSON form, at most one each per stage', () => {
    for (const stage of file.stages) {
      for (const keyword of ['ENTRYPOINT', 'CMD']) {
        const found = stage.instructions.filter((i) => i.keyword === keyword)
        expect(found.length).toBeLessThanOrEqual(1)
        for (const ins of found) expect(execForm(ins.args)).toBeDefined()
      }
    }
  })

  test('DL3011: EXPOSE only valid ports; DL3057: every serving target has a HEALTHCHECK', () => {
    for (const stage of targetStages) {
      const config = imageConfig(stage)
      for (const port of config.expose) expect(port >= 1 && port <= 65535).toBe(true)
      if (config.expose.length > 0) expect(config.healthcheck).toBeDefined()
    }
  })
})

describe('.dockerignore', () => {
  test('keeps secrets, local builds, dependencies and VCS data out of the context', () => {
    for (const path of [
      '.env',
      '.env.production',
      'src/.env',
      'hub/dist/index.html',
      'node_modules/elysia/package.json',
      '.git/config',
      '.svc-demo/pg',
      'test/unit/x.test.ts',
      'docs/containers.md',
    ]) {
      expect(`${path}: ${isIgnored(ignore, path)}`).toBe(`${path}: true`)
    }
  })

  test('sends every path the Dockerfile copies from the context', () => {
    for (const stage of file.stages) {
      for (const ins of stage.instructions.filter((i) => i.keyword === 'COPY')) {
        const { flags, rest } = splitFlags(ins.args)
        if (flags['from']) continue
        const sources = rest.split(/\s+/).slice(0, -1)
        for (const src of sources) expect(`${src}: ${isIgnored(ignore, src)}`).toBe(`${src}: false`)
      }
    }
  })
})
