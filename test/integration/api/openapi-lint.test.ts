/**
 * The OpenAPI description the real API serves passes `@redocly/cli lint`
 * with its recommended rules (redocly.yaml): no error, and only the
 * warnings docs/metrics.md "Lint" accepts. The linter runs offline, on Bun.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { startTestApi, type TestApi } from '../../support/api-server.ts'

const ROOT = join(import.meta.dir, '../../..')
const REDOCLY_CLI = join(dirname(Bun.resolveSync('@redocly/cli/package.json', ROOT)), 'bin/cli.js')

/** The warnings accepted, by rule (docs/metrics.md "Lint"). */
const ACCEPTED_WARNINGS = ['info-license']

interface LintReport {
  readonly totals: { readonly errors: number; readonly warnings: number }
  readonly problems: readonly { readonly ruleId: string; readonly severity: string; readonly message: string; readonly location: readonly { readonly pointer: string }[] }[]
}

function lint(description: unknown): LintReport {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-'))
  try {
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(description))
    const run = Bun.spawnSync({
      cmd: [process.execPath, REDOCLY_CLI, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const out = run.stdout.toString()
    if (!out.trimStart().startsWith('{')) throw new Error(`redocly lint printed no report (exit ${run.exitCode}): ${run.stderr.toString()}`)
    return JSON.parse(out) as LintReport
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

describe('@redocly/cli lint on /swagger/json', () => {
  let api: TestApi
  beforeAll(async () => {
    api = await startTestApi('postgres')
  })
  afterAll(() => api.stop())

  test('no error; the warnings are the accepted ones', async () => {
    const report = lint(await (await fetch(api.url + '/swagger/json')).json())
    const described = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
    expect(described.filter((line) => line.startsWith('error'))).toEqual([])
    expect([...new Set(report.problems.map((p) => p.ruleId))].sort()).toEqual(ACCEPTED_WARNINGS)
  })

  test('the linter does find errors: a description without servers fails', async () => {
    const description = (await (await fetch(api.url + '/swagger/json')).json()) as Record<string, unknown>
    delete description.servers
    const report = lint(description)
    expect(report.problems.filter((p) => p.severity === 'error').map((p) => p.ruleId)).toEqual(['no-empty-servers'])
  })
})
