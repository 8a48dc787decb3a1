import { describe, expect, test } from 'bun:test'
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { ApiError } from '../../../hub/src/lib/api-error.ts'
import { PreviewController, sameConfig } from '../../../hub/src/lib/preview-controller.ts'
import type { DiffConfig, DiffPreview } from '../../../hub/src/lib/types.ts'

class Host implements ReactiveControllerHost {
  controllers: ReactiveController[] = []
  updates = 0
  updateComplete = Promise.resolve(true)
  addController(c: ReactiveController) {
    this.controllers.push(c)
  }
  removeController() {}
  requestUpdate() {
    this.updates++
  }
}

/** Lets every zero-delay timer and settled promise run. */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0))
}

const config = (ignored: string[]): DiffConfig => ({ ignored_fields: ignored, included_fields: [], float_tolerance: 0, sort_arrays: false })
const preview = (silenced: number): DiffPreview => ({
  examined: 10,
  diffs_before: 8,
  diffs_after: 8 - silenced,
  silenced,
  surfaced: 0,
  signatures: [],
  examples: { silenced: [], surfaced: [] },
})
const busy = () => new ApiError({ kind: 'http', status: 409, problem: { type: '/errors/conflict', title: 'Conflict', status: 409 } }, 'http://api/x')

describe('PreviewController', () => {
  test('asks once the edits pause, for the last config only', async () => {
    const asked: DiffConfig[] = []
    const c = new PreviewController(new Host(), async (cfg) => (asked.push(cfg), preview(cfg.ignored_fields.length)), { delayMs: 0 })
    c.request(config(['body.a']))
    c.request(config(['body.a', 'body.b']))
    expect(c.pending).toBe(true)
    await settle()
    expect(asked).toEqual([config(['body.a', 'body.b'])])
    expect(c.pending).toBe(false)
    expect(c.value?.preview.silenced).toBe(2)
    expect(c.value?.config).toEqual(config(['body.a', 'body.b']))
    // The same config again asks nothing.
    c.request(config(['body.a', 'body.b']))
    await settle()
    expect(asked).toHaveLength(1)
  })

  test('aborts the request under way when the config changes, and ignores its late answer', async () => {
    const signals: AbortSignal[] = []
    const answers: ((p: DiffPreview) => void)[] = []
    const c = new PreviewController(
      new Host(),
      (_cfg, signal) => {
        signals.push(signal)
        return new Promise<DiffPreview>((resolve) => answers.push(resolve))
      },
      { delayMs: 0 },
    )
    c.request(config(['body.a']))
    await settle()
    c.request(config(['body.b']))
    expect(signals[0]?.aborted).toBe(true)
    await settle()
    answers[1]!(preview(2))
    answers[0]!(preview(1))
    await settle()
    expect(c.value?.preview.silenced).toBe(2)
    expect(c.value?.config).toEqual(config(['body.b']))
  })

  test('a 409 (another preview runs) is retried, busy meanwhile, then answered', async () => {
    let calls = 0
    const seen: boolean[] = []
    const host = new Host()
    host.requestUpdate = () => void seen.push(c.busy)
    const c: PreviewController = new PreviewController(
      host,
      async () => {
        if (++calls <= 2) throw busy()
        return preview(3)
      },
      { delayMs: 0, busyRetryMs: 0 },
    )
    c.request(config(['body.a']))
    await settle()
    expect(seen).toContain(true)
    expect(calls).toBe(3)
    expect(c.busy).toBe(false)
    expect(c.error).toBeUndefined()
    expect(c.value?.preview.silenced).toBe(3)
  })

  test('a 409 that persists past its retries is shown as the error', async () => {
    let calls = 0
    const c = new PreviewController(new Host(), async () => (calls++, Promise.reject(busy())), { delayMs: 0, busyRetryMs: 0, busyRetries: 2 })
    c.request(config(['body.a']))
    await settle()
    await settle()
    expect(calls).toBe(3)
    expect(c.busy).toBe(false)
    expect(c.pending).toBe(false)
    expect((c.error as ApiError).status).toBe(409)
    // Try again asks anew.
    c.retry()
    await settle()
    await settle()
    expect(calls).toBe(6)
  })

  test('another error is kept; asking for the same config again retries it', async () => {
    let fail = true
    const c = new PreviewController(new Host(), async () => {
      if (fail) throw new ApiError({ kind: 'network', message: 'refused' }, 'http://api/x')
      return preview(1)
    }, { delayMs: 0 })
    c.request(config(['body.a']))
    await settle()
    expect(c.error).toBeInstanceOf(ApiError)
    fail = false
    c.request(config(['body.a']))
    await settle()
    expect(c.error).toBeUndefined()
    expect(c.value?.preview.silenced).toBe(1)
  })

  test('nothing to preview clears the preview and aborts the request under way', async () => {
    const signals: AbortSignal[] = []
    const c = new PreviewController(
      new Host(),
      (_cfg, signal) => (signals.push(signal), new Promise<DiffPreview>(() => {})),
      { delayMs: 0 },
    )
    c.request(config(['body.a']))
    await settle()
    c.request(undefined)
    expect(signals[0]?.aborted).toBe(true)
    expect(c.pending).toBe(false)
    expect(c.value).toBeUndefined()
    expect(c.config).toBeUndefined()
  })

  test('leaving the page aborts the request under way', async () => {
    const signals: AbortSignal[] = []
    const c = new PreviewController(new Host(), (_cfg, signal) => (signals.push(signal), new Promise<DiffPreview>(() => {})), { delayMs: 0 })
    c.request(config(['body.a']))
    await settle()
    c.hostDisconnected()
    expect(signals[0]?.aborted).toBe(true)
  })
})

describe('sameConfig', () => {
  test('compares the four fields, lists in order', () => {
    expect(sameConfig(config(['a', 'b']), config(['a', 'b']))).toBe(true)
    expect(sameConfig(config(['a', 'b']), config(['b', 'a']))).toBe(false)
    expect(sameConfig(config([]), { ...config([]), float_tolerance: 0.1 })).toBe(false)
    expect(sameConfig(config([]), { ...config([]), sort_arrays: true })).toBe(false)
    expect(sameConfig(config([]), { ...config([]), included_fields: ['body.x'] })).toBe(false)
  })
})
