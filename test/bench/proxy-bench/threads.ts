/**
 * The threads of a Bun process, by what they do: the main thread runs the
 * JavaScript (its name is the process's, `bun` or a worker's), the others
 * carry their own names (`HTTP Client` for fetch's sockets, `HeapHelper`
 * for the collector, `mi-scavenger` for the allocator...).
 */
import { readdirSync, readFileSync } from 'node:fs'

export const JAVASCRIPT_THREAD = 'JavaScript'

export interface ProcessThread {
  readonly tid: string
  readonly name: string
}

/** A process's threads now; none when it has ended. A thread that ends while they are read is left out. */
export function threadsOf(pid: number): ProcessThread[] {
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return []
  }
  const threads: ProcessThread[] = []
  for (const tid of tids) {
    try {
      const name = tid === String(pid) ? JAVASCRIPT_THREAD : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      threads.push({ tid, name })
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads
}
