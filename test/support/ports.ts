/**
 * Ports on 127.0.0.1 for what a test starts, or for an address that must
 * refuse connections. Taken below the kernel's ephemeral range: a port a
 * listener on port 0 was given and let go may be given to the next one
 * (a proxy started after it, whose shadow URL would then point at itself;
 * a candidate that then cannot start), but a port outside that range is
 * never given out, so it stays free for the process the test starts on it.
 * No bun:test here: scripts that start the stack use it too.
 */
import { readFileSync } from 'node:fs'

/** Ports handed out by this process: no two callers get the same one. */
const handedOut = new Set<number>()

/** A port on 127.0.0.1 where nothing listens now, none other handed out by this process. */
export function freePort(): number {
  const [low] = ephemeralPortRange()
  const from = Math.max(1024, low - 12_000)
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * (low - from))
    if (handedOut.has(port)) continue
    try {
      Bun.serve({ hostname: '127.0.0.1', port, fetch: () => new Response() }).stop(true)
      handedOut.add(port)
      return port
    } catch {
      // Something listens there: another one.
    }
  }
  throw new Error('no port below the ephemeral range is free on 127.0.0.1')
}

/** `count` distinct free ports, for a process started with SVC_APP_PORT and friends (which take 1-65535, never 0). */
export function freePorts(count: number): number[] {
  return Array.from({ length: count }, freePort)
}

/** A URL on 127.0.0.1 that refuses connections for as long as the tests run: nothing will listen there. */
export function refusedUrl(): string {
  return `http://127.0.0.1:${freePort()}`
}

/** The kernel's range for ports handed out to a listener on port 0 (Linux's default elsewhere). */
export function ephemeralPortRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
    if (low !== undefined && high !== undefined && low > 0) return [low, high]
  } catch {
    // Not Linux: its default.
  }
  return [32_768, 60_999]
}
