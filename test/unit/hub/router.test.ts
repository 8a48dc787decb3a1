import { describe, expect, test } from 'bun:test'
import { gatePath, gateRequestsPath, gateViewPath, matchRoute, movedGateLink, requestPath } from '../../../hub/src/lib/router.ts'

describe('matchRoute', () => {
  const G = '0b7c8f5e-6a3d-4d2b-9c1e-2f4a5b6c7d8e'
  const R = '5d1e2f3a-4b5c-4d6e-8f9a-0b1c2d3e4f5a'
  test.each([
    ['/', { name: 'overview' }],
    ['', { name: 'overview' }],
    ['/gates', { name: 'overview' }],
    [`/gates/${G}`, { name: 'gate', gateId: G, view: 'differences' }],
    [`/gates/${G}/`, { name: 'gate', gateId: G, view: 'differences' }],
    [`/gates/${G}/requests`, { name: 'gate', gateId: G, view: 'requests' }],
    [`/gates/${G}/settings/`, { name: 'gate', gateId: G, view: 'settings' }],
    [`/gates/${G}/requests/${R}`, { name: 'request', gateId: G, requestId: R }],
    ['/gates/a%2Fb', { name: 'gate', gateId: 'a/b', view: 'differences' }],
    [`/gates/${G}/settings/x`, { name: 'not-found', path: `/gates/${G}/settings/x` }],
    [`/gates/${G}/differences`, { name: 'not-found', path: `/gates/${G}/differences` }],
    [`/gates/${G}/requests/${R}/x`, { name: 'not-found', path: `/gates/${G}/requests/${R}/x` }],
    ['/gates//requests/x', { name: 'not-found', path: '/gates//requests/x' }],
    ['/gates/%E0%A4%A', { name: 'not-found', path: '/gates/%E0%A4%A' }],
    ['/settings', { name: 'not-found', path: '/settings' }],
  ])('%p', (path, route) => {
    expect(matchRoute(path)).toEqual(route as never)
  })

  test('paths it builds match back', () => {
    expect(matchRoute(gatePath('a b'))).toEqual({ name: 'gate', gateId: 'a b', view: 'differences' })
    expect(matchRoute(gateRequestsPath('a b', 'x=1').split('?')[0]!)).toEqual({ name: 'gate', gateId: 'a b', view: 'requests' })
    expect(matchRoute(gateViewPath('g', 'settings'))).toEqual({ name: 'gate', gateId: 'g', view: 'settings' })
    expect(gatePath('g', 'window=1h')).toBe('/gates/g?window=1h')
    expect(gateRequestsPath('g', 'signature=024f4f9242c2d465')).toBe('/gates/g/requests?signature=024f4f9242c2d465')
    expect(matchRoute(requestPath('g/1', 'r?2'))).toEqual({ name: 'request', gateId: 'g/1', requestId: 'r?2' })
    expect(gatePath('g', 'has_diff=true')).toBe('/gates/g?has_diff=true')
  })
})

describe('movedGateLink: gate links from before the Differences view', () => {
  test.each([
    ['/gates/g', 'has_diff=true', '/gates/g/requests?has_diff=true'],
    ['/gates/g/', 'method=GET,POST&offset=50', '/gates/g/requests?method=GET,POST&offset=50'],
    ['/gates/g', 'limit=2', '/gates/g/requests?limit=2'],
    ['/gates/g', 'from=2025-06-01T00:00:00.000Z', '/gates/g/requests?from=2025-06-01T00:00:00.000Z'],
    ['/gates/g', 'window=1h', undefined],
    ['/gates/g', '', undefined],
    ['/gates/g', 'utm_source=mail', undefined],
    ['/gates/g/requests', 'has_diff=true', undefined],
    ['/gates/g/settings', 'has_diff=true', undefined],
    ['/', 'has_diff=true', undefined],
  ])('%p?%p → %p', (path, search, moved) => {
    expect(movedGateLink(path, search)).toBe(moved)
  })
})
