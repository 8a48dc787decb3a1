import { describe, expect, test } from 'bun:test'
import { formatMs, TimeoutReason, toUpstreamError, UpstreamError } from '../../../../src/proxy/upstream/upstream-error.ts'
import { liveFailureProblem } from '../../../../src/proxy/pipeline/problem-response.ts'
import { ResponseProtocolError, ResponseTooLargeError } from '../../../../src/proxy/upstream/response-head.ts'

function codeError(code: string): Error {
  return Object.assign(new TypeError(`${code}: something`), { code })
}

describe('toUpstreamError', () => {
  test.each([
    ['ECONNREFUSED', 'refused', 'live: connection refused'],
    ['ECONNRESET', 'reset', 'live: connection reset'],
    ['ENOTFOUND', 'error', 'live: ENOTFOUND: something'],
    ['Malformed_HTTP_Response', 'bad_response', 'live: bad response: malformed (fetch: Malformed_HTTP_Response)'],
    ['InvalidHTTPResponse', 'bad_response', 'live: bad response: malformed (fetch: InvalidHTTPResponse)'],
    ['InvalidContentLength', 'bad_response', 'live: bad response: malformed (fetch: InvalidContentLength)'],
    ['ResponseHeadersTooLarge', 'too_large', 'live: response too large (head, refused by fetch)'],
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

  test('our reader’s refusals keep their words: "bad response: <what>" and "response too large (<what>)"', () => {
    const bad = toUpstreamError(new ResponseProtocolError('status 99 outside 100..599'), 'shadow')
    expect({ kind: bad.kind, message: bad.message }).toEqual({
      kind: 'bad_response',
      message: 'shadow: bad response: status 99 outside 100..599',
    })
    const large = toUpstreamError(new ResponseTooLargeError('head over 65536 bytes'), 'shadow')
    expect({ kind: large.kind, message: large.message }).toEqual({
      kind: 'too_large',
      message: 'shadow: response too large (head over 65536 bytes)',
    })
  })

  test('a timeout wins over what the aborted read threw', () => {
    const controller = new AbortController()
    controller.abort(new TimeoutReason(1000))
    expect(toUpstreamError(new ResponseProtocolError('x'), 'shadow', controller.signal).kind).toBe('timeout')
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
    for (const kind of ['refused', 'reset', 'too_large', 'bad_response', 'error'] as const) {
      expect(liveFailureProblem(new UpstreamError(kind, 'live', 'x')).status).toBe(502)
    }
  })
})

test('formatMs writes durations as configured', () => {
  expect(formatMs(5000)).toBe('5s')
  expect(formatMs(1500)).toBe('1.5s')
  expect(formatMs(300)).toBe('300ms')
})
