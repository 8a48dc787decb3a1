import { describe, expect, test } from 'bun:test'
import { Registry } from '../../../src/metrics/index.ts'
import type { ToPrimary } from '../../../src/workers/ipc-messages.ts'
import { connectToPrimary, type IpcChannel } from '../../../src/workers/worker-link.ts'

/** Both ends of a channel in one process: what the worker sent, and a way to speak as the primary. */
function channel() {
  const sent: ToPrimary[] = []
  let listener: (message: unknown) => void = () => {}
  let disconnect: () => void = () => {}
  const end: IpcChannel = {
    send: (message) => void sent.push(message),
    onMessage: (l) => void (listener = l),
    onDisconnect: (l) => void (disconnect = l),
  }
  return { end, sent, fromPrimary: (message: unknown) => listener(message), disconnect: () => disconnect() }
}

describe('connectToPrimary', () => {
  test('says ready, and follows the cluster state the primary sends', () => {
    const c = channel()
    const link = connectToPrimary(3, c.end)
    expect(link.index).toBe(3)
    expect(link.clusterState).toBe('starting')
    link.ready()
    expect(c.sent).toEqual([{ kind: 'ready' }])
    c.fromPrimary({ kind: 'cluster', state: 'ready' })
    expect(link.clusterState).toBe('ready')
    c.fromPrimary('noise')
    c.fromPrimary({ kind: 'unknown' })
    expect(link.clusterState).toBe('ready')
  })

  test('answers a snapshot request with the provider, once there is one', async () => {
    const c = channel()
    const link = connectToPrimary(0, c.end)
    c.fromPrimary({ kind: 'snapshot', id: 1 })
    await Bun.sleep(0)
    expect(c.sent).toEqual([])
    const registry = new Registry()
    registry.counter({ name: 'x_total', help: 'X.' }).inc(2)
    link.provideSnapshot(() => registry.snapshot())
    c.fromPrimary({ kind: 'snapshot', id: 2 })
    await Bun.sleep(0)
    expect(c.sent).toEqual([{ kind: 'snapshot', id: 2, snapshot: registry.snapshot() }])
  })

  test('asks the primary for the merged metrics and gets its answer, or undefined in time', async () => {
    const c = channel()
    const link = connectToPrimary(0, c.end)
    const answered = link.mergedMetrics(5000)
    expect(c.sent).toEqual([{ kind: 'metrics', id: 0 }])
    c.fromPrimary({ kind: 'metrics', id: 0, text: 'x_total 2\n' })
    expect(await answered).toBe('x_total 2\n')
    expect(await link.mergedMetrics(10)).toBeUndefined()
  })

  test('a gone primary ends what waits on it and is said once', async () => {
    const c = channel()
    const link = connectToPrimary(0, c.end)
    let gone = 0
    link.onPrimaryGone(() => gone++)
    const waiting = link.mergedMetrics(60_000)
    c.disconnect()
    c.disconnect()
    expect(await waiting).toBeUndefined()
    expect(gone).toBe(1)
    expect(await link.mergedMetrics(60_000)).toBeUndefined()
  })
})
