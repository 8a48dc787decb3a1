import { expect, test } from 'bun:test'
import { envPairs } from './env-pairs.ts'

test('settings given as NAME=value pairs: a value may hold "=", spaces around a pair and pairs without "=" are dropped', () => {
  expect(envPairs(' SVC_APP_WORKERS=auto , BUN_JSC_logGC=1,SVC_APP_SHADOW_RULES=GET /a?b=c,stray,')).toEqual({
    SVC_APP_WORKERS: 'auto',
    BUN_JSC_logGC: '1',
    SVC_APP_SHADOW_RULES: 'GET /a?b=c',
  })
  expect(envPairs(undefined)).toEqual({})
  expect(envPairs('')).toEqual({})
})
