import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import {
  interpolateDeep,
  MissingVariableError,
  references,
} from '../../container/compose-interpolation.ts'
import { parseDockerfile } from '../../container/dockerfile-parser.ts'

const REPO = join(import.meta.dir, '../../..')
const text = await Bun.file(join(REPO, 'compose.yaml')).text()
const compose = Bun.YAML.parse(text) as ComposeFile
const stages = new Set(
  parseDockerfile(await Bun.file(join(REPO, 'Dockerfile')).text()).stages.map((s) => s.name),
)

interface ComposeService {
  image?: string
  build?: { context?: string; target?: string }
  ports?: string[]
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }>
  healthcheck?: { test: string[] }
  volumes?: string[]
  profiles?: string[]
  restart?: string
  init?: boolean
  cap_drop?: string[]
  security_opt?: string[]
  stop_grace_period?: string
}
interface ComposeFile {
  services: Record<string, ComposeService>
  volumes?: Record<string, unknown>
}

const services = compose.services
/** The container side of a `host:container` (or `ip:host:container`) mapping. */
const containerPorts = (s: ComposeService) =>
  (s.ports ?? []).map((p) => Number(p.split(':').at(-1)))

/** A .env that sets what compose.yaml requires. */
const DOTENV = { SVC_APP_API_KEY: 'compose-test-key-0123456789', POSTGRES_PASSWORD: 'pw-123' }

describe('compose.yaml', () => {
  test('runs PostgreSQL, the migrator, the API, a proxy and the hub', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'hub', 'migrator', 'postgres', 'proxy'])
  })

  test('builds each app service from its Dockerfile target', () => {
    for (const name of ['api', 'proxy', 'hub', 'migrator']) {
      expect(services[name]!.build).toEqual({ context: '.', target: name })
      expect(stages.has(name)).toBe(true)
      expect(services[name]!.image).not.toMatch(/:latest$/)
    }
  })

  test('publishes the default ports: 8090 for the API, 8080 and 8081 for the proxy, 8070 for the hub', () => {
    expect(containerPorts(services['api']!)).toEqual([8090])
    expect(containerPorts(services['proxy']!).sort()).toEqual([8080, 8081])
    expect(containerPorts(services['hub']!)).toEqual([8070])
    // The database stays inside the compose network.
    expect(services['postgres']!.ports).toBeUndefined()
    expect(services['migrator']!.ports).toBeUndefined()
  })

  test('the components listen where they are published', () => {
    expect(services['api']!.environment!['SVC_APP_PORT']).toBe('8090')
    expect(services['proxy']!.environment!['SVC_APP_PORT']).toBe('8080')
    expect(services['proxy']!.environment!['SVC_APP_ADMIN_PORT']).toBe('8081')
    expect(services['hub']!.environment!['SVC_APP_PORT']).toBe('8070')
  })

  test('PostgreSQL: official image pinned to a major version, pg_isready healthcheck, named volume', () => {
    const pg = services['postgres']!
    expect(pg.image).toMatch(/^postgres:\d+(\.\d+)?-alpine$/)
    expect(pg.healthcheck?.test).toContain('pg_isready')
    const [volume] = (pg.volumes ?? [])[0]!.split(':')
    expect(Object.keys(compose.volumes ?? {})).toContain(volume!)
  })

  test('the migrator runs once, after PostgreSQL is healthy; the API waits for it to succeed', () => {
    expect(services['migrator']!.depends_on).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(services['migrator']!.restart).toBe('no')
    expect(services['api']!.depends_on).toEqual({
      migrator: { condition: 'service_completed_successfully' },
    })
    expect(services['proxy']!.depends_on).toEqual({ api: { condition: 'service_healthy' } })
  })

  test('the proxy runs in API mode, started on its own once a gate exists', () => {
    const env = services['proxy']!.environment!
    expect(env['SVC_APP_API_URL']).toBe('http://api:8090')
    expect(env['SVC_APP_GATE_ID']).toBe('${SVC_APP_GATE_ID:-}')
    expect(env['SVC_APP_LIVE_URL']).toBeUndefined()
    expect(services['proxy']!.profiles).toEqual(['proxy'])
  })

  test('secrets come from .env and are required, never defaulted', () => {
    for (const ref of references(text)) {
      if (/KEY|PASSWORD/.test(ref.name)) expect(`${ref.name} ${ref.op}`).toBe(`${ref.name} :?`)
    }
    for (const name of ['api', 'proxy', 'hub']) {
      expect(services[name]!.environment!['SVC_APP_API_KEY']).toStartWith('${SVC_APP_API_KEY:?')
    }
  })

  test('without SVC_APP_API_KEY in .env, compose refuses to start and says which variable', () => {
    expect(() => interpolateDeep(compose, { POSTGRES_PASSWORD: 'x' })).toThrow(MissingVariableError)
    expect(() => interpolateDeep(compose, { POSTGRES_PASSWORD: 'x' })).toThrow('SVC_APP_API_KEY')
  })

  test('with the two secrets set, every value resolves', () => {
    const resolved = interpolateDeep(compose, DOTENV) as ComposeFile
    expect(resolved.services['api']!.environment!['SVC_APP_DATABASE_URL']).toBe(
      'postgres://svc:pw-123@postgres:5432/svc',
    )
    expect(resolved.services['api']!.ports).toEqual(['127.0.0.1:8090:8090'])
    expect(resolved.services['hub']!.environment!['SVC_APP_API_BASE_URL']).toBe(
      'http://localhost:8090',
    )
    // The API lets the hub's origin in: its CORS origins must list it
    // (docs/reference/configuration.md "Hub").
    expect(resolved.services['api']!.environment!['SVC_APP_CORS_ORIGINS']).toBe(
      'http://localhost:8070',
    )
    expect(JSON.stringify(resolved)).not.toContain('${')
  })

  test('app containers run with an init process and without extra privileges', () => {
    for (const name of ['api', 'proxy', 'hub', 'migrator']) {
      expect(services[name]!.init).toBe(true)
      expect(services[name]!.cap_drop).toEqual(['ALL'])
      expect(services[name]!.security_opt).toContain('no-new-privileges:true')
    }
  })

  test('the API and the proxy get longer than the shadow drain to stop', () => {
    // After SIGTERM, background work drains for up to the shadow timeout
    // (10 s, docs/proxy.md "Shutdown"), which is all of Docker's default
    // grace period.
    for (const name of ['api', 'proxy']) expect(services[name]!.stop_grace_period).toBe('20s')
  })
})
