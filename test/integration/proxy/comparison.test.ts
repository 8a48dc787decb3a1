import { describe, expect, test } from 'bun:test'
import { diffSignature, errorSignature } from '../../../src/insights/index.ts'
import { gzipJson, json, JSON_DOCUMENT, refusedUrl, type TestUpstream, useUpstreamPair } from '../../support/upstreams.ts'
import { standaloneEnv, startTestProxy, type ProxyUnderTest } from './proxy-harness.ts'

let live: TestUpstream
let shadow: TestUpstream
useUpstreamPair((pair) => ({ live, shadow } = pair))

/** Runs `body` against a fresh standalone proxy, stopping it afterwards. */
async function withProxy(env: Record<string, string>, body: (proxy: ProxyUnderTest) => Promise<void>): Promise<void> {
  const proxy = await startTestProxy(standaloneEnv(live.url, shadow.url, env))
  try {
    await body(proxy)
  } finally {
    await proxy.stop()
  }
}

describe('standalone comparison', () => {
  test('counts a match and logs nothing about it', () =>
    withProxy({}, async (proxy) => {
      await (await fetch(`${proxy.url}/json`)).text()
      const counts = await proxy.settled()
      expect(counts.compared).toBe(1)
      expect(await proxy.metric('svc_responses_compared_total', { gate: '', result: 'match' })).toBe(1)
      expect(proxy.records().some((r) => r.msg === 'response diff detected')).toBe(false)
    }))

  test('logs "response diff detected" with the request, both statuses and the diff', () =>
    withProxy({}, async (proxy) => {
      shadow.route('/json', () => json({ ...JSON_DOCUMENT, pagination: { ...JSON_DOCUMENT.pagination, total: 17 } }))
      await (await fetch(`${proxy.url}/json?page=1`, { headers: { 'x-request-id': '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40' } })).text()
      const record = await proxy.waitForRecord('response diff detected')
      expect(record).toMatchObject({
        level: 'INFO',
        'http.request.header.x-request-id': '0b9d6c1e-4f7a-4c3e-9d1b-2a6f8e5c7d40',
        'request.method': 'GET',
        'request.path': '/json',
        endpoint: 'GET /json',
        signature: diffSignature({ method: 'GET', template: '/json' }, [{ op: 'replace', path: '/body/pagination/total' }])!.id,
        live_status: 200,
        shadow_status: 200,
        diff: 'replace /body/pagination/total=17',
      })
      await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'diff' })).toBe(1)
      expect(await proxy.metric('svc_diff_operations_count', { gate: '' })).toBe(1)
    }))

  test('decodes gzip bodies for the comparison: a change inside shows as a body path', () =>
    withProxy({}, async (proxy) => {
      shadow.route('/gzip', () => gzipJson({ ...JSON_DOCUMENT, pagination: { ...JSON_DOCUMENT.pagination, has_more: true } }))
      await (await fetch(`${proxy.url}/gzip`)).arrayBuffer()
      const record = await proxy.waitForRecord('response diff detected')
      expect(record.diff).toBe('replace /body/pagination/has_more=true')
    }))

  test('identical gzip bodies are a match', () =>
    withProxy({}, async (proxy) => {
      await (await fetch(`${proxy.url}/gzip`)).arrayBuffer()
      await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'match' })).toBe(1)
    }))

  test('a shadow 500 against a live 200 is a diff on /status', () =>
    withProxy({}, async (proxy) => {
      shadow.route('/json', () => new Response(JSON.stringify(JSON_DOCUMENT), { status: 500, headers: { 'content-type': 'application/json' } }))
      await (await fetch(`${proxy.url}/json`)).text()
      const record = await proxy.waitForRecord('response diff detected')
      expect(record.shadow_status).toBe(500)
      expect(String(record.diff)).toContain('replace /status=500')
    }))

  test('applies SVC_APP_DIFF_IGNORED_FIELDS and SVC_APP_REDACTED_FIELDS', () =>
    withProxy(
      { SVC_APP_DIFF_IGNORED_FIELDS: 'body.pagination.total', SVC_APP_REDACTED_FIELDS: 'body.data.#.name' },
      async (proxy) => {
        shadow.route('/json', () =>
          json({
            data: JSON_DOCUMENT.data.map((item) => ({ ...item, name: 'changed' })),
            pagination: { ...JSON_DOCUMENT.pagination, total: 99 },
          }),
        )
        await (await fetch(`${proxy.url}/json`)).text()
        await proxy.settled()
        expect(await proxy.metric('svc_responses_compared_total', { result: 'match' })).toBe(1)
      },
    ))

  test('a shadow that is down is a comparison error with shadow status 0; live is unaffected', async () => {
    const proxy = await startTestProxy(standaloneEnv(live.url, refusedUrl()))
    try {
      const response = await fetch(`${proxy.url}/json`)
      expect(response.status).toBe(200)
      await response.text()
      const record = await proxy.waitForRecord('comparison failed')
      expect(record).toMatchObject({ shadow_status: 0, live_status: 200 })
      expect(String(record.cause)).toContain('connection refused')
      await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(1)
      expect(await proxy.metric('svc_comparison_errors_total', { side: 'shadow' })).toBe(1)
      expect(await proxy.metric('svc_comparison_errors_total', { side: 'live' })).toBe(0)
    } finally {
      await proxy.stop()
    }
  })

  test('after a refusal the down shadow is not tried again for a moment: the comparison is still an error', async () => {
    const proxy = await startTestProxy(standaloneEnv(live.url, refusedUrl()))
    try {
      for (let i = 0; i < 3; i++) expect((await fetch(`${proxy.url}/json`)).status).toBe(200)
      const counts = await proxy.settled()
      expect(counts.compared).toBe(3)
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(3)
      // One connection attempt, the two others were answered from the refusal window.
      expect(
        await proxy.metric('http_client_request_duration_seconds_count', { svc_target: 'shadow' }),
      ).toBe(1)
    } finally {
      await proxy.stop()
    }
  })

  test('a shadow slower than SVC_APP_SHADOW_TIMEOUT is an error; the client got live at once', () =>
    withProxy({ SVC_APP_SHADOW_TIMEOUT: '300ms' }, async (proxy) => {
      shadow.route('/json', async () => {
        await Bun.sleep(2000)
        return new Response('{}')
      })
      const started = performance.now()
      await (await fetch(`${proxy.url}/json`)).text()
      expect(performance.now() - started).toBeLessThan(250)
      const record = await proxy.waitForRecord('comparison failed')
      expect(String(record.cause)).toContain('timed out after 300ms')
      expect(record).toMatchObject({
        endpoint: 'GET /json',
        signature: errorSignature({ method: 'GET', template: '/json' }, null, 'timeout').id,
      })
      await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(1)
    }))

  test('a shadow that breaks mid-body is an error, not a diff', () =>
    withProxy({}, async (proxy) => {
      live.route('/reset-mid-body', () => new Response('complete'))
      const response = await fetch(`${proxy.url}/reset-mid-body`)
      expect(await response.text()).toBe('complete')
      await proxy.settled()
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(1)
    }))

  test('a shadow response above SVC_APP_MAX_BODY_SIZE is a shadow error (too large), compared, not skipped', () =>
    withProxy({ SVC_APP_MAX_BODY_SIZE: '1000' }, async (proxy) => {
      live.route('/large', () => new Response('small'))
      expect(await (await fetch(`${proxy.url}/large?bytes=5000`)).text()).toBe('small')
      const record = await proxy.waitForRecord('comparison failed')
      expect(String(record.cause)).toContain('shadow: response too large (body over 1000 bytes)')
      const counts = await proxy.settled()
      expect(counts.skipped.body_too_large).toBe(0)
      expect(await proxy.metric('svc_responses_compared_total', { result: 'error' })).toBe(1)
    }))
})

describe('which requests are shadowed', () => {
  test('base rules: POST, PUT, DELETE and PATCH go to live only (denied_by_rule)', () =>
    withProxy({}, async (proxy) => {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
        await (await fetch(`${proxy.url}/echo`, { method, body: '{}' })).text()
      }
      await (await fetch(`${proxy.url}/json`, { method: 'OPTIONS' })).text()
      const counts = await proxy.settled()
      expect(counts.skipped.denied_by_rule).toBe(4)
      expect(counts.compared).toBe(1)
      expect(shadow.requests.map((r) => r.method)).toEqual(['OPTIONS'])
    }))

  test('a user rule allows a POST path and denies a GET path, first match wins', () =>
    withProxy({ SVC_APP_SHADOW_RULES: 'allow POST:/api/search, deny GET:/admin/*' }, async (proxy) => {
      await (await fetch(`${proxy.url}/api/search`, { method: 'POST', body: '{"q":1}' })).text()
      await (await fetch(`${proxy.url}/ADMIN/users`)).text()
      await (await fetch(`${proxy.url}//admin//users`)).text()
      const counts = await proxy.settled()
      expect(counts.skipped.denied_by_rule).toBe(2)
      expect(shadow.requests.map((r) => `${r.method} ${r.target}`)).toEqual(['POST /api/search'])
    }))

  test('SVC_APP_SAMPLING_RATE=0 shadows nothing (sampled_out)', () =>
    withProxy({ SVC_APP_SAMPLING_RATE: '0' }, async (proxy) => {
      for (let i = 0; i < 5; i++) await (await fetch(`${proxy.url}/json`)).text()
      const counts = await proxy.settled()
      expect(counts.skipped.sampled_out).toBe(5)
      expect(shadow.requests).toHaveLength(0)
    }))

  test('SVC_APP_SAMPLING_RATE=0.5 shadows about half', () =>
    withProxy({ SVC_APP_SAMPLING_RATE: '0.5' }, async (proxy) => {
      const n = 200
      for (let i = 0; i < n; i++) await (await fetch(`${proxy.url}/json`)).text()
      const counts = await proxy.settled()
      // Binomial(200, 0.5): 100 ± 50 is more than 7 standard deviations.
      expect(counts.skipped.sampled_out).toBeGreaterThan(50)
      expect(counts.skipped.sampled_out).toBeLessThan(150)
      expect(counts.compared + counts.skipped.sampled_out).toBe(n)
    }))
})

describe('the callbacks bound', () => {
  test('when SVC_APP_MAX_CONCURRENT_CALLBACKS are busy, comparisons are dropped with one warning; live is fine', () =>
    withProxy({ SVC_APP_MAX_CONCURRENT_CALLBACKS: '2', SVC_APP_SHADOW_TIMEOUT: '5s' }, async (proxy) => {
      let release!: () => void
      const gate = new Promise<void>((resolve) => {
        release = resolve
      })
      shadow.route('/json', async () => {
        await gate
        return new Response('{}')
      })
      const statuses: number[] = []
      for (let i = 0; i < 6; i++) {
        const response = await fetch(`${proxy.url}/json?access_token=SECRET${i}`)
        statuses.push(response.status)
        await response.text()
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200])
      expect(proxy.proxy.handler.inFlight).toBe(2)
      release()
      const counts = await proxy.settled()
      expect(counts.skipped.callbacks_full).toBe(4)
      expect(counts.compared).toBe(2)
      const warnings = proxy.records().filter((r) => r.msg.startsWith('comparison dropped'))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]!.level).toBe('WARN')
      // The path, not the query string, which may carry a token.
      expect(warnings[0]!['request.path']).toBe('/json')
      expect(JSON.stringify(proxy.records())).not.toContain('SECRET')
    }))
})

describe('nothing is lost silently', () => {
  test('compared + skipped by reason = requests received, over a mixed load', () =>
    withProxy({ SVC_APP_SAMPLING_RATE: '0.7', SVC_APP_MAX_BODY_SIZE: '2000', SVC_APP_MAX_CONCURRENT_CALLBACKS: '8' }, async (proxy) => {
      const paths = ['/json', '/json', '/large?bytes=4000', '/status/404', '/echo']
      // Waves of one request per path: all 150 at once would fill the 8
      // callback slots at request time, before any /large response could be
      // seen to be too large, and body_too_large would depend on luck.
      for (let wave = 0; wave < 150; wave += paths.length) {
        const requests: Promise<void>[] = []
        for (let i = wave; i < wave + paths.length; i++) {
          const path = paths[i % paths.length]!
          const method = i % 7 === 0 ? 'POST' : 'GET'
          requests.push(
            fetch(`${proxy.url}${path}`, method === 'POST' ? { method, body: 'x' } : {}).then((r) => r.arrayBuffer().then(() => {})),
          )
        }
        await Promise.all(requests)
      }
      const counts = await proxy.settled()
      expect(counts.received).toBe(150)
      expect(counts.compared + counts.skippedTotal).toBe(150)
      expect(counts.skipped.denied_by_rule).toBeGreaterThan(0)
      expect(counts.skipped.sampled_out).toBeGreaterThan(0)
      expect(counts.skipped.body_too_large).toBeGreaterThan(0)
    }))
})
