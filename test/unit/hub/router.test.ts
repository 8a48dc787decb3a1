import { describe, expect, test } from 'bun:test'
import { gatePath, matchRoute, requestPath } from '../../../hub/src/lib/router.ts'

describe('matchRoute', () => {
  const G = '0b7c8f5e-6a3d-4d2b-9c1e-2f4a5b6c7d8e'
  const R = '5d1e2f3a-4b5c-4d6e-8f9a-0b1c2d3e4f5a'
  test.each([
    ['/', { name: 'overview' }],
    ['', { name: 'overview' }],
    ['/gates', { name: 'overview' }],
    [`/gates/${G}`, { name: 'gate', gateId: G }],
    [`/gates/${G}/`, { name: 'gate', gateId: G }],
    [`/gates/${G}/requests/${R}`, { name: 'request', gateId: G, requestId: R }],
    ['/gates/a%2Fb', { name: 'gate', gateId: 'a/b' }],
    [`/gates/${G}/requests`, { name: 'not-found', path: `/gates/${G}/requests` }],
    [`/gates/${G}/requests/${R}/x`, { name: 'not-found', path: `/gates/${G}/requests/${R}/x` }],
    ['/gates//requests/x', { name: 'not-found', path: '/gates//requests/x' }],
    ['/gates/%E0%A4%A', { name: 'not-found', path: '/gates/%E0%A4%A' }],
    ['/settings', { name: 'not-found', path: '/settings' }],
  ])('%p', (path, route) => {
    expect(matchRoute(path)).toEqual(route as never)
  })

  test('paths it builds match back', () => {
    expect(matchRoute(gatePath('a b'))).toEqual({ name: 'gate', gateId: 'a b' })
    expect(matchRoute(requestPath('g/1', 'r?2'))).toEqual({ name: 'request', gateId: 'g/1', requestId: 'r?2' })
    expect(gatePath('g', 'has_diff=true')).toBe('/gates/g?has_diff=true')
  })
})
