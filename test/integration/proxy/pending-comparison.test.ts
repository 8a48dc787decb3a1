/**
 * The end of a comparison (src/proxy/pipeline/pending-comparison.ts) when
 * what it calls fails, on real upstreams: a sink that throws, and a sink
 * whose answer throws when it is read (a bug past the point where the
 * sink's own failures are caught). Every comparison still ends exactly
 * once (its slot and bytes given back, its task finished, so the drain at
 * shutdown has nothing to wait for), and the client gets live's response
 * untouched. The end runs inside whatever brought the last side in (live's
 * stream, the shadow's exchange), so nothing of it may escape.
 */
import { expect, test } from 'bun:test'
import { createLogger } from '../../../src/log/index.ts'
import { createShadowHandler, type CaptureSink } from '../../../src/proxy/index.ts'
import { sumSamples } from '../../support/prometheus-text.ts'
import { testShadowSettings } from '../../support/shadow-settings.ts'
import { JSON_TEXT, useUpstreamPair, type TestUpstream } from '../../support/upstreams.ts'

let live: TestUpstream
let shadow: TestUpstream
useUpstreamPair((pair) => ({ live, shadow } = pair))

const sinks: Record<string, { sink: CaptureSink; reportFailed: number }> = {
  'a sink that throws': {
    sink: {
      submit() {
        throw new Error('sink bug')
      },
    },
    reportFailed: 5,
  },
  'a sink whose answer throws when read': {
    sink: {
      submit: () =>
        ({
          get kind(): never {
            throw new Error('outcome bug')
          },
        }) as never,
    },
    reportFailed: 0,
  },
}

for (const [what, { sink, reportFailed }] of Object.entries(sinks)) {
  test(`${what}: each comparison ends once, the drain finds nothing left, the client gets live`, async () => {
    const records: string[] = []
    const handler = createShadowHandler(testShadowSettings(live.url, shadow.url), {
      sink,
      logger: createLogger({ level: 'info', format: 'json', write: (line) => records.push(line) }),
    })
    try {
      // Small bodies (copied whole) and a streamed one (the pass-through), in parallel.
      const paths = ['/json', '/json', '/json', '/large?bytes=300000', '/json']
      const bodies = await Promise.all(paths.map(async (path) => (await handler.fetch(new Request(`http://host${path}`))).text()))
      expect(bodies.filter((body) => body === JSON_TEXT)).toHaveLength(4)
      expect(bodies[3]!.length).toBe(300_000)
      expect(await handler.drain(5000)).toEqual({ completed: expect.any(Number), aborted: 0 })
      expect(handler.inFlight).toBe(0)
      expect(handler.bytesInFlight).toBe(0)
      const rendered = handler.metrics.registry.render()
      expect(sumSamples(rendered, 'svc_comparisons_skipped_total', { reason: 'report_failed' })).toBe(reportFailed)
      expect(sumSamples(rendered, 'svc_background_comparisons')).toBe(0)
      // Either way it is said: a warning for a sink that failed, an error for a bug past it.
      expect(records.some((line) => line.includes(reportFailed > 0 ? 'comparison abandoned' : 'failed unexpectedly'))).toBe(true)
    } finally {
      await handler.close(1000)
    }
  })
}
