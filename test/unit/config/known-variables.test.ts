import { describe, expect, test } from 'bun:test'
import { unknownVariables } from '../../../src/config/known-variables.ts'

describe('unknownVariables', () => {
  test('a misspelt variable is reported with the name it most likely meant', () => {
    expect(unknownVariables({ SVC_APP_RETENTON: '0h', SVC_APP_SAMPLNG_RATE: '0.5' })).toEqual([
      { variable: 'SVC_APP_RETENTON', suggestion: 'SVC_APP_RETENTION' },
      { variable: 'SVC_APP_SAMPLNG_RATE', suggestion: 'SVC_APP_SAMPLING_RATE' },
    ])
  })

  test('a name far from every known one has no suggestion', () => {
    expect(unknownVariables({ SVC_APP_SOMETHING_ELSE_ENTIRELY: '1' })).toEqual([
      { variable: 'SVC_APP_SOMETHING_ELSE_ENTIRELY', suggestion: undefined },
    ])
  })

  test('variables of any component, and names outside SVC_APP_, are not reported', () => {
    expect(
      unknownVariables({
        SVC_APP_RETENTION: '720h', // the API's
        SVC_APP_SHADOW_RULES: '', // the proxy's
        SVC_APP_API_BASE_URL: 'http://a', // the hub's
        SVC_APP_DATABASE_URL: 'pglite://memory', // the migrator's
        PATH: '/usr/bin',
        VITE_API_BASE_URL: 'http://a',
      }),
    ).toEqual([])
  })
})
