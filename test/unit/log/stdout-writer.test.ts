import { describe, expect, test } from 'bun:test'
import { resolve } from 'node:path'

const LOG_INDEX = resolve(import.meta.dir, '../../../src/log/index.ts')

/** Runs a script in a fresh Bun process and returns its stdout. */
async function run(script: string): Promise<{ stdout: string; exitCode: number }> {
  const child = Bun.spawn([process.execPath, '-e', script], { stdout: 'pipe', stderr: 'pipe' })
  const [stdout, exitCode] = await Promise.all([new Response(child.stdout).text(), child.exited])
  return { stdout, exitCode }
}

describe('the default writer', () => {
  test('writes whole lines to stdout, non-ASCII included', async () => {
    const { stdout } = await run(`
      const { createLogger } = await import(${JSON.stringify(LOG_INDEX)})
      const log = createLogger({ level: 'info', format: 'json' })
      log.info('première', { n: 1 })
      log.info('second')
    `)
    const records = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(records.map((r) => r.msg)).toEqual(['première', 'second'])
  })

  test('loses nothing when the process exits right after logging', async () => {
    const { stdout, exitCode } = await run(`
      const { createLogger } = await import(${JSON.stringify(LOG_INDEX)})
      const log = createLogger({ level: 'info', format: 'text' })
      for (let i = 0; i < 2000; i++) log.info('filler', { i, pad: 'x'.repeat(200) })
      log.error('startup failed', { reason: 'last words' })
      process.exit(1)
    `)
    expect(exitCode).toBe(1)
    const lines = stdout.trimEnd().split('\n')
    expect(lines).toHaveLength(2001)
    expect(lines.at(-1)).toContain('msg="startup failed" reason="last words"')
  })
})
