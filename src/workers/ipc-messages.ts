/**
 * What a primary and its worker processes say to each other over Bun's IPC
 * channel (structured clone), defined once for both ends (docs/proxy.md
 * "Workers").
 */
import type { MetricsSnapshot } from '../metrics/index.ts'

/**
 * The primary's word on the workers as a whole: `starting` until every
 * worker has served once, `ready` while at least one serves, `stopping`
 * from the first signal. What `/health/ready` answers for.
 */
export const CLUSTER_STATES = ['starting', 'ready', 'stopping'] as const
export type ClusterState = (typeof CLUSTER_STATES)[number]

/** From the primary to a worker. */
export type ToWorker =
  /** Send your metrics snapshot, answering with this id. */
  | { readonly kind: 'snapshot'; readonly id: number }
  /** The cluster's state, sent when it changes and to each worker when it is ready. */
  | { readonly kind: 'cluster'; readonly state: ClusterState }
  /** The merged exposition asked for with this id; undefined when it could not be made. */
  | { readonly kind: 'metrics'; readonly id: number; readonly text: string | undefined }

/** From a worker to the primary. */
export type ToPrimary =
  /** Listening: the worker serves from now on. */
  | { readonly kind: 'ready' }
  | { readonly kind: 'snapshot'; readonly id: number; readonly snapshot: MetricsSnapshot }
  /** Asks for the exposition merged over every worker (the API's `/metrics`). */
  | { readonly kind: 'metrics'; readonly id: number }

/** The command-line flag that makes `bun run src/main.ts <component>` a worker: `--worker=<index>`. */
export const WORKER_FLAG = '--worker'

/** The worker index in `argv`, or undefined when this process is not a worker. */
export function workerIndexOf(argv: readonly string[]): number | undefined {
  const flag = argv.find((arg) => arg === WORKER_FLAG || arg.startsWith(`${WORKER_FLAG}=`))
  if (flag === undefined) return undefined
  const index = Number(flag.slice(WORKER_FLAG.length + 1))
  return Number.isSafeInteger(index) && index >= 0 && flag.length > WORKER_FLAG.length + 1 ? index : NaN
}

/** A message of either direction, before its kind is switched on; anything else is ignored. */
export function hasKind(message: unknown): message is { readonly kind: string } {
  return typeof message === 'object' && message !== null && typeof (message as { kind?: unknown }).kind === 'string'
}
