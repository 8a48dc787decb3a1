import { describe, expect, test } from 'bun:test'
import { formatMs, TimeoutReason, toUpstreamError, UpstreamError } from '../../../src/proxy/upstream-error.ts'
import { liveFailureProblem } from '../../../src/proxy/problem-response.ts'

function codeError(code: string): Error {
  return Object.assign(new TypeError(`${code}: something`), { code })
}

describe('toUpstreamError', () => {
  test.each([
    ['ECONNREFUSED', 'refused', 'live: connection refused'],
    ['ECONNRESET', 'reset', 'live: connection reset'],
    ['ENOTFOUND', 'error', 'live: ENOTFOUND: something'],
  ])('%s is %s', (code, kind, message) => {
    const error = toUpstreamError(codeError(code), 'live')
    expect(error.kind).toBe(kind as UpstreamError['kind'])
    expect(error.message).toBe(message)
  })

  test('our own timer’s abort is a timeout that says how long', () => {
    const controller = new AbortController()
    controller.abort(new TimeoutReason(5000))
    const error = toUpstreamError(controller.signal.reason, 'shadow', controller.signal)
    expect(error.kind).toBe('timeout')
    expect(error.message).toBe('shadow: timed out after 5s')
  })

  test('an UpstreamError passes through as it is', () => {
    const error = new UpstreamError('reset', 'api', 'api: connection reset')
    expect(toUpstreamError(error, 'live')).toBe(error)
  })
})

describe('the client’s answer when live fails', () => {
  test('504 for a timeout, 502 otherwise', () => {
    expect(liveFailureProblem(new UpstreamError('timeout', 'live', 'live: timed out after 5s'))).toEqual({
      type: '/errors/gateway-timeout',
      title: 'Gateway timeout',
      status: 504,
      detail: 'live: timed out after 5s',
    })
    for (const kind of ['refused', 'reset', 'error'] as const) {
      expect(liveFailureProblem(new UpstreamError(kind, 'live', 'x')).status).toBe(502)
    }
  })
})

test('formatMs writes durations as configured', () => {
  expect(formatMs(5000)).toBe('5s')
  expect(formatMs(1500)).toBe('1.5s')
  expect(formatMs(300)).toBe('300ms')
})
