/**
 * `passThrough` (src/proxy/upstream/bounded-body.ts) on a real server and
 * a client in another process: the client's response ends before `onEnd`
 * runs, so that work done there (a comparison that runs at once, when the
 * shadow's side came in first) is never the client's to wait for.
 */
import { expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { passThrough, type StreamEnd } from '../../../../src/proxy/upstream/bounded-body.ts'

test("the client has live's whole body before onEnd runs", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pass-through-'))
  const received = join(dir, 'received')
  let seenByOnEnd: boolean | undefined
  let end: StreamEnd | undefined
  const body = () =>
    new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('first,'))
        controller.enqueue(new TextEncoder().encode('second'))
        controller.close()
      },
    })
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(
        passThrough(body(), 0, (ended) => {
          end = ended
          // Held here, synchronously, as a comparison would hold it: the
          // client, in its own process, can finish only if its response was
          // ended before. Bounded: 5 s, then the answer is no.
          const until = performance.now() + 5000
          while (!existsSync(received) && performance.now() < until) Bun.sleepSync(5)
          seenByOnEnd = existsSync(received)
        }),
      ),
  })
  const client = Bun.spawn(
    ['bun', '-e', `const text = await (await fetch(${JSON.stringify(server.url.href)})).text(); await Bun.write(${JSON.stringify(received)}, text)`],
    { stdout: 'ignore', stderr: 'inherit' },
  )
  try {
    expect(await client.exited).toBe(0)
    expect(await Bun.file(received).text()).toBe('first,second')
    expect(seenByOnEnd).toBe(true)
    expect(end?.kind).toBe('complete')
    expect(new TextDecoder().decode((end as Extract<StreamEnd, { kind: 'complete' }>).bytes)).toBe('first,second')
  } finally {
    client.kill()
    await server.stop(true)
    rmSync(dir, { recursive: true, force: true })
  }
})
