/**
 * The hostile upstream is what the proxy's hostile-upstream tests stand on:
 * what an answer writes must reach the client whole, however large, so that
 * a test of a large or endless body tests the proxy, not bytes the helper
 * dropped when the socket took a large write in parts.
 */
import { expect, test } from 'bun:test'
import { startHostileUpstream, type HostileConnection } from '../../support/hostile-upstream.ts'

const SIZE = 8 * 1024 * 1024
const BODY = Buffer.alloc(SIZE, 'y')

const ANSWERS = {
  '/length': (c: HostileConnection) => c.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Length: ${SIZE}\r\n\r\n`, 'latin1'), BODY])),
  '/until-close': (c: HostileConnection) => {
    c.write('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n')
    c.write(BODY)
    c.end()
  },
}

test.each(Object.keys(ANSWERS))('%s: a body written in one piece much larger than a socket buffer arrives whole', async (path) => {
  // An upstream per test: it answers one request per connection, and fetch would reuse a kept-alive one.
  const hostile = startHostileUpstream(ANSWERS)
  try {
    const response = await fetch(`${hostile.url}${path}`)
    expect(response.status).toBe(200)
    const bytes = new Uint8Array(await response.arrayBuffer())
    expect(bytes.byteLength).toBe(SIZE)
    expect(Buffer.from(bytes).equals(BODY)).toBe(true)
  } finally {
    hostile.stop()
  }
}, 30_000)
