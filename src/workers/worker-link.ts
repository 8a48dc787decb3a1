/**
 * A worker's end of the IPC channel to its primary (docs/proxy.md
 * "Workers"): it says when the worker serves, answers the primary's
 * snapshot requests, asks for the exposition merged over every worker, and
 * learns the cluster's state for readiness.
 */
import type { MetricsSnapshot } from '../metrics/index.ts'
import { hasKind, type ClusterState, type ToPrimary, type ToWorker } from './ipc-messages.ts'

export interface WorkerLink {
  /** This worker's index, from 0; stable across restarts. */
  readonly index: number
  /** The primary's word on the workers as a whole (ipc-messages.ts). */
  readonly clusterState: ClusterState
  /** Tells the primary this worker now serves. */
  ready(): void
  /** How to answer the primary's snapshot requests; none are answered before. */
  provideSnapshot(provide: () => MetricsSnapshot | Promise<MetricsSnapshot>): void
  /** The exposition merged over every worker, or undefined when the primary gave none in `timeoutMs`. */
  mergedMetrics(timeoutMs: number): Promise<string | undefined>
  /** Called once when the primary goes away (it was killed): the worker should drain and exit. */
  onPrimaryGone(callback: () => void): void
}

/** The channel as Bun gives it to a process spawned with `ipc` (`process.send`, `process.on('message')`). */
export interface IpcChannel {
  send(message: ToPrimary): void
  onMessage(listener: (message: unknown) => void): void
  onDisconnect(listener: () => void): void
}

/** This process's channel to its parent, or undefined when it was not spawned with one. */
export function parentChannel(): IpcChannel | undefined {
  if (typeof process.send !== 'function') return undefined
  return {
    send: (message) => void process.send!(message),
    onMessage: (listener) => void process.on('message', listener),
    onDisconnect: (listener) => void process.on('disconnect', listener),
  }
}

export function connectToPrimary(index: number, channel: IpcChannel): WorkerLink {
  let clusterState: ClusterState = 'starting'
  let provide: (() => MetricsSnapshot | Promise<MetricsSnapshot>) | undefined
  let nextId = 0
  const waiting = new Map<number, (text: string | undefined) => void>()
  const goneCallbacks: Array<() => void> = []
  let gone = false

  const send = (message: ToPrimary) => {
    try {
      channel.send(message)
    } catch {
      // The primary is gone; onDisconnect says so.
    }
  }
  const answerSnapshot = async (id: number) => {
    if (provide === undefined) return
    send({ kind: 'snapshot', id, snapshot: await provide() })
  }
  channel.onMessage((message) => {
    if (!hasKind(message)) return
    const m = message as ToWorker
    switch (m.kind) {
      case 'snapshot':
        void answerSnapshot(m.id).catch(() => undefined)
        return
      case 'cluster':
        clusterState = m.state
        return
      case 'metrics':
        waiting.get(m.id)?.(m.text)
        return
    }
  })
  channel.onDisconnect(() => {
    if (gone) return
    gone = true
    for (const resolve of waiting.values()) resolve(undefined)
    for (const callback of goneCallbacks) callback()
  })

  return {
    index,
    get clusterState() {
      return clusterState
    },
    ready: () => send({ kind: 'ready' }),
    provideSnapshot(provider) {
      provide = provider
    },
    mergedMetrics(timeoutMs) {
      if (gone) return Promise.resolve(undefined)
      const id = nextId++
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish(undefined), timeoutMs)
        const finish = (text: string | undefined) => {
          clearTimeout(timer)
          waiting.delete(id)
          resolve(text)
        }
        waiting.set(id, finish)
        send({ kind: 'metrics', id })
      })
    },
    onPrimaryGone(callback) {
      goneCallbacks.push(callback)
    },
  }
}
