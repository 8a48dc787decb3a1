import { describe, expect, test } from 'bun:test'
import { CircuitBreaker } from '../../../../src/proxy/policy/circuit-breaker.ts'
import { Semaphore } from '../../../../src/proxy/policy/semaphore.ts'
import { decideShadow, type AdmissionPolicy } from '../../../../src/proxy/policy/admission-policy.ts'
import { compileShadowRules } from '../../../../src/proxy/policy/shadow-rules.ts'

function policy(overrides: Partial<AdmissionPolicy> = {}): AdmissionPolicy {
  return {
    rules: compileShadowRules(''),
    sample: () => true,
    maxBodyBytes: 100,
    breaker: undefined,
    callbacks: new Semaphore(0),
    ...overrides,
  }
}

describe('decideShadow', () => {
  test('shadows an eligible GET and takes a callbacks slot', () => {
    const callbacks = new Semaphore(1)
    expect(decideShadow(policy({ callbacks }), 'GET', '/a', undefined)).toBeUndefined()
    expect(callbacks.inUse).toBe(1)
  })

  test('rules are decided before sampling: a denied POST never draws a sample', () => {
    let draws = 0
    const sample = () => {
      draws++
      return false
    }
    expect(decideShadow(policy({ sample }), 'POST', '/a', 2)).toBe('denied_by_rule')
    expect(draws).toBe(0)
    expect(decideShadow(policy({ sample }), 'GET', '/a', undefined)).toBe('sampled_out')
    expect(draws).toBe(1)
  })

  test('an announced body above the bound is body_too_large; 0 means unlimited', () => {
    const rules = compileShadowRules('allow POST:*')
    expect(decideShadow(policy({ rules }), 'POST', '/a', 101)).toBe('body_too_large')
    expect(decideShadow(policy({ rules, maxBodyBytes: 0 }), 'POST', '/a', 10 ** 9)).toBeUndefined()
  })

  test('an open breaker skips before a slot is taken', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 1 })
    breaker.onFailure()
    const callbacks = new Semaphore(1)
    expect(decideShadow(policy({ breaker, callbacks }), 'GET', '/a', undefined)).toBe('breaker_open')
    expect(callbacks.inUse).toBe(0)
  })

  test('a full callbacks bound is callbacks_full', () => {
    const callbacks = new Semaphore(1)
    callbacks.tryAcquire()
    expect(decideShadow(policy({ callbacks }), 'GET', '/a', undefined)).toBe('callbacks_full')
  })
})
