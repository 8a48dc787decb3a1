import { describe, expect, test } from 'bun:test'
import { acceptedServerRuntimeEnv, SERVER_RUNTIME_ENV, serverRuntimeEnvironment } from '../../../src/workers/server-runtime.ts'

describe('serverRuntimeEnvironment', () => {
  test('adds each server setting the environment lacks and keeps everything else', () => {
    const env = serverRuntimeEnvironment({ PATH: '/bin', SVC_APP_PORT: '8080' })
    expect(env).toEqual({ PATH: '/bin', SVC_APP_PORT: '8080', ...SERVER_RUNTIME_ENV })
  })

  test("keeps an operator's own value", () => {
    const [name] = Object.keys(SERVER_RUNTIME_ENV)
    expect(serverRuntimeEnvironment({ [name!]: '5' })[name!]).toBe('5')
  })

  test('adds nothing when given no settings, and does not change the environment it is given', () => {
    const given = { PATH: '/bin' }
    expect(serverRuntimeEnvironment(given, {})).toEqual({ PATH: '/bin' })
    serverRuntimeEnvironment(given)
    expect(given).toEqual({ PATH: '/bin' })
  })
})

describe('acceptedServerRuntimeEnv', () => {
  // Fails when a new Bun no longer knows a setting: then it is to be replaced or dropped.
  test('the Bun running the tests takes every setting', () => {
    expect(acceptedServerRuntimeEnv()).toEqual(SERVER_RUNTIME_ENV)
  })

  test('a runtime that does not start with them gets none', () => {
    expect(acceptedServerRuntimeEnv('/bin/false')).toEqual({})
  })
})
