/**
 * Which process holds each established TCP connection to a local port, read
 * from Linux's /proc (net/tcp, net/tcp6 and each process's fd links): a way
 * to see which of several workers sharing a port (SO_REUSEPORT) accepted a
 * connection, without the server telling.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** tcp_states.h: TCP_ESTABLISHED. */
const ESTABLISHED = '01'

/** Socket inodes of established connections whose local port is `port`. */
function establishedInodes(port: number): Set<string> {
  const inodes = new Set<string>()
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10) continue
      if (fields[1]!.endsWith(`:${hexPort}`) && fields[3] === ESTABLISHED) inodes.add(fields[9]!)
    }
  }
  return inodes
}

/** How many of the established connections to `port` each of `pids` holds. */
export function connectionsByOwner(port: number, pids: readonly number[]): Map<number, number> {
  const inodes = establishedInodes(port)
  const owners = new Map<number, number>()
  for (const pid of pids) {
    let count = 0
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      fds = []
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        if (match && inodes.has(match[1]!)) count++
      } catch {
        // Closed while we looked.
      }
    }
    owners.set(pid, count)
  }
  return owners
}
