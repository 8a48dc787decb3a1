/**
 * Every other proxy suite again with Bun.serve in front
 * (SVC_TEST_PROXY_SERVER=bun, which `proxy-harness.ts` turns into
 * SVC_APP_PROXY_SERVER for each proxy it starts; the default, the raw
 * server, runs them in the main run): forwarding, comparison, API mode,
 * hostile upstreams, the budget, the lifecycle. Both servers must answer
 * alike wherever a suite does not say otherwise.
 * Run as a child `bun test`, since a suite registers its tests once per process.
 */
import { expect, test } from 'bun:test'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '../../../..')

test('every proxy suite passes with Bun.serve in front', async () => {
  const files = [...new Bun.Glob('test/integration/proxy/**/*.test.ts').scanSync(ROOT)]
    .filter((file) => !file.startsWith('test/integration/proxy/server/'))
    .sort()
  expect(files.length).toBeGreaterThan(10)
  const child = Bun.spawn(['bun', 'test', '--timeout', '60000', ...files.map((file) => `./${file}`)], {
    cwd: ROOT,
    env: { ...process.env, SVC_TEST_PROXY_SERVER: 'bun' },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  const output = stdout + stderr
  const failures = output.split('\n').filter((line) => line.startsWith('(fail)'))
  const passed = Number(/^\s*(\d+) pass$/m.exec(output)?.[1] ?? 0)
  // Named here, so that a failure reads as the suite's own.
  expect(failures).toEqual([])
  expect(code).toBe(0)
  expect(passed).toBeGreaterThan(200)
}, 300_000)
