import { describe, expect, test } from 'bun:test'
import { errorClassOf } from '../../../src/insights/index.ts'
import { TimeoutReason, toUpstreamError } from '../../../src/proxy/upstream/upstream-error.ts'

describe('errorClassOf', () => {
  test.each([
    ['shadow: timed out after 1s', 'timeout'],
    ['shadow: timed out', 'timeout'],
    ['live: timed out after 250ms', 'timeout'],
    ['shadow: connection refused', 'refused'],
    ['shadow: connection refused (not attempted: the shadow refused a connection and has not answered since; one is tried at most every 1000 ms)', 'refused'],
    ['shadow: connection reset', 'reset'],
    ['shadow: connection reset (a kept-alive connection the server had closed)', 'reset'],
    ['shadow: response too large (over 10485760 bytes)', 'too_large'],
    ['shadow: bad response: invalid chunk size', 'bad_response'],
    ['timed out after 2s', 'timeout'],
    ['  shadow: connection refused', 'refused'],
    ['shadow: getaddrinfo ENOTFOUND candidate.internal', 'error'],
    ['shadow: aborted (shutting down)', 'error'],
    ['', 'error'],
    ['something else entirely', 'error'],
  ])('%p is %p', (text, errorClass) => {
    expect(errorClassOf(text)).toBe(errorClass as never)
  })

  test('classifies the texts the proxy writes for a failed shadow', () => {
    const timeout = new TimeoutReason(1000)
    expect(errorClassOf(toUpstreamError(timeout, 'shadow').message)).toBe('timeout')
    const refused = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })
    expect(errorClassOf(toUpstreamError(refused, 'shadow').message)).toBe('refused')
    const reset = Object.assign(new Error('reset'), { code: 'ECONNRESET' })
    expect(errorClassOf(toUpstreamError(reset, 'shadow').message)).toBe('reset')
    expect(errorClassOf(toUpstreamError(new Error('boom'), 'shadow').message)).toBe('error')
  })
})
