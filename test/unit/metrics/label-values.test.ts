import { describe, expect, test } from 'bun:test'
import {
  COMPARISON_RESULTS,
  httpMethodLabel,
  SKIP_REASONS,
  statusCodeLabel,
  SVC_TARGETS,
  svcTargetLabel,
} from '../../../src/metrics/index.ts'

describe('label values', () => {
  test('are the documented sets', () => {
    expect(COMPARISON_RESULTS).toEqual(['match', 'diff', 'error'])
    expect(SVC_TARGETS).toEqual(['live', 'shadow', 'api', 'unknown'])
    expect(SKIP_REASONS).toEqual([
      'sampled_out',
      'denied_by_rule',
      'body_too_large',
      'callbacks_full',
      'breaker_open',
      'report_failed',
      'memory_budget',
    ])
  })

  test.each<[string, string]>([
    ['GET', 'GET'],
    ['PATCH', 'PATCH'],
    ['get', '_OTHER'],
    ['BREW', '_OTHER'],
    ['', '_OTHER'],
  ])('httpMethodLabel(%p) = %p', (method, label) => {
    expect<string>(httpMethodLabel(method)).toBe(label)
  })

  test.each<[number, number | '']>([
    [200, 200],
    [503, 503],
    [0, ''],
    [-1, ''],
  ])('statusCodeLabel(%p) = %p', (status, label) => {
    expect(statusCodeLabel(status)).toBe(label)
  })

  test.each<[string, string]>([
    ['live', 'live'],
    ['api', 'api'],
    ['elsewhere', 'unknown'],
  ])('svcTargetLabel(%p) = %p', (target, label) => {
    expect<string>(svcTargetLabel(target)).toBe(label)
  })
})
