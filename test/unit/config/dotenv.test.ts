import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseDotenv } from '../../../src/config/dotenv.ts'
import { loadEnvironment } from '../../../src/config/environment.ts'

describe('parseDotenv', () => {
  test('reads the usual forms', () => {
    const text = [
      '# a comment',
      'A=1',
      'export B = two ',
      'C="quoted # not a comment\\n"',
      "D='single $x'",
      'E=value # trailing comment',
      'not a line',
      'F=',
    ].join('\n')
    expect(parseDotenv(text)).toEqual({ A: '1', B: 'two', C: 'quoted # not a comment\n', D: 'single $x', E: 'value', F: '' })
  })
})

describe('loadEnvironment', () => {
  test('the process environment wins over .env', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-env-'))
    try {
      writeFileSync(join(dir, '.env'), 'SVC_APP_PORT=1\nSVC_APP_RETENTION=48h\n')
      const env = loadEnvironment(dir, { SVC_APP_PORT: '2' })
      expect(env.SVC_APP_PORT).toBe('2')
      expect(env.SVC_APP_RETENTION).toBe('48h')
    } finally {
      rmSync(dir, { recursive: true })
    }
  })

  test('no .env file is fine', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-env-'))
    try {
      expect(loadEnvironment(dir, { X: 'y' })).toEqual({ X: 'y' })
    } finally {
      rmSync(dir, { recursive: true })
    }
  })
})
