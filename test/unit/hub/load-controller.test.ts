import { describe, expect, test } from 'bun:test'
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import { LoadController } from '../../../hub/src/lib/load-controller.ts'

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
  /** What Lit does before each render. */
  update() {
    for (const c of this.controllers) c.hostUpdate?.()
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('LoadController', () => {
  test('runs when its arguments change, and only then', async () => {
    const host = new Host()
    let arg = 'a'
    let runs = 0
    const c = new LoadController(host, async ([x]) => (runs++, x.toUpperCase()), () => [arg] as const)
    host.update()
    expect(c.pending).toBe(true)
    await tick()
    expect(c.value).toBe('A')
    expect(c.pending).toBe(false)
    host.update()
    expect(runs).toBe(1)
    arg = 'b'
    host.update()
    await tick()
    expect(c.value).toBe('B')
    expect(runs).toBe(2)
  })

  test('aborts the previous run and ignores its late result', async () => {
    const host = new Host()
    let arg = 1
    const signals: AbortSignal[] = []
    const resolvers: ((v: number) => void)[] = []
    const c = new LoadController(
      host,
      ([x], signal) => {
        signals.push(signal)
        return new Promise<number>((resolve) => resolvers.push(() => resolve(x)))
      },
      () => [arg] as const,
    )
    host.update()
    arg = 2
    host.update()
    expect(signals[0]?.aborted).toBe(true)
    resolvers[1]?.(2)
    await tick()
    resolvers[0]?.(1)
    await tick()
    expect(c.value).toBe(2)
  })

  test('keeps the last value while reloading, and exposes errors', async () => {
    const host = new Host()
    let fail = false
    const c = new LoadController(
      host,
      async () => {
        if (fail) throw new Error('boom')
        return 'ok'
      },
      () => [] as const,
    )
    host.update()
    await tick()
    fail = true
    c.reload()
    expect(c.value).toBe('ok')
    expect(c.pending).toBe(true)
    await tick()
    expect((c.error as Error).message).toBe('boom')
    expect(c.value).toBe('ok')
  })

  test('aborts when the host disconnects', () => {
    const host = new Host()
    let signal: AbortSignal | undefined
    const c = new LoadController(
      host,
      (_args, s) => {
        signal = s
        return new Promise(() => {})
      },
      () => [] as const,
    )
    host.update()
    c.hostDisconnected()
    expect(signal?.aborted).toBe(true)
  })
})
