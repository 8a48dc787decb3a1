import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { connect, type Socket } from 'node:net'
import { join } from 'node:path'
import { frontendMessage, PROTOCOL_3_0, SSL_REQUEST_CODE } from '../../../src/store/pg-wire.ts'
import { startPgliteServer, type PgliteServer } from '../../../src/store/pglite-server.ts'
import { DATABASE_HOOK_TIMEOUT_MS } from '../../support/database.ts'

/**
 * Raw protocol clients on PGlite's socket, so that the order in which two
 * connections' messages reach the server is the test's to choose: what
 * postgres.js does only now and then under load (one connection's exchange
 * arriving in two pieces with another's in between), done on purpose.
 */

const text = (s: string) => new TextEncoder().encode(s)
const int16 = (n: number) => new Uint8Array([n >> 8, n & 0xff])
const int32 = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff])
const join_ = (...parts: Uint8Array[]) => Buffer.concat(parts)

function untyped(code: number, body: Uint8Array = new Uint8Array(0)): Uint8Array {
  return join_(int32(8 + body.length), int32(code), body)
}
const startup = () => untyped(PROTOCOL_3_0, text('user\0postgres\0database\0postgres\0\0'))
const parse = (query: string) => frontendMessage('P', join_(text(`\0${query}\0`), int16(0)))
const bind = () => frontendMessage('B', join_(text('\0\0'), int16(0), int16(0), int16(0)))
const execute = () => frontendMessage('E', join_(text('\0'), int32(0)))
const flush = () => frontendMessage('H')
const sync = () => frontendMessage('S')
const query = (sql: string) => frontendMessage('Q', text(`${sql}\0`))

interface BackendMessage {
  readonly type: string
  readonly body: Buffer
}

/** A raw client: what it sends goes out as given; what comes back is cut into messages. */
class RawClient {
  readonly messages: BackendMessage[] = []
  private pending = Buffer.alloc(0)
  /** An SSLRequest went out: the next byte is its one-byte answer. */
  private awaitingEncryptionAnswer = false
  closed = false

  private constructor(readonly socket: Socket) {
    socket.on('data', (piece: Buffer) => this.read(piece))
    socket.on('close', () => (this.closed = true))
    socket.on('error', () => {})
  }

  static async open(server: PgliteServer, options: { startup?: boolean } = {}): Promise<RawClient> {
    const socket = connect(join(server.socketDir, `.s.PGSQL.${server.port}`))
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject))
    const client = new RawClient(socket)
    if (options.startup !== false) {
      client.send(startup())
      await client.until((m) => m.type === 'Z')
      client.messages.length = 0
    }
    return client
  }

  requestEncryption(): void {
    this.awaitingEncryptionAnswer = true
    this.send(untyped(SSL_REQUEST_CODE))
  }

  send(...messages: Uint8Array[]): void {
    this.socket.write(join_(...messages))
  }

  private read(piece: Buffer): void {
    this.pending = Buffer.concat([this.pending, piece])
    if (this.awaitingEncryptionAnswer) {
      this.awaitingEncryptionAnswer = false
      this.messages.push({ type: String.fromCharCode(this.pending[0]!), body: Buffer.alloc(0) })
      this.pending = this.pending.subarray(1)
    }
    while (this.pending.length >= 5) {
      const length = this.pending.readInt32BE(1)
      if (this.pending.length < 1 + length) return
      this.messages.push({ type: String.fromCharCode(this.pending[0]!), body: this.pending.subarray(5, 1 + length) })
      this.pending = this.pending.subarray(1 + length)
    }
  }

  /** Waits (at most 5 s) for a message matching `match`, and returns it. */
  async until(match: (m: BackendMessage) => boolean): Promise<BackendMessage> {
    const deadline = Date.now() + 5000
    while (Date.now() < deadline) {
      const found = this.messages.find(match)
      if (found) return found
      if (this.closed) break
      await Bun.sleep(5)
    }
    throw new Error(`no such message; got ${this.messages.map((m) => m.type).join(' ')}${this.closed ? ' (closed)' : ''}`)
  }

  /** Waits (at most 5 s) for the server to close the connection. */
  async gone(): Promise<void> {
    const deadline = Date.now() + 5000
    while (!this.closed && Date.now() < deadline) await Bun.sleep(5)
    expect(this.closed).toBe(true)
  }

  /** The text of each DataRow's first column, in order. */
  rows(): string[] {
    return this.messages.filter((m) => m.type === 'D').map((m) => m.body.subarray(6, 6 + m.body.readInt32BE(2)).toString())
  }

  errors(): string[] {
    return this.messages.filter((m) => m.type === 'E').map((m) => errorField(m.body, 'M'))
  }

  close(): void {
    this.socket.destroy()
  }
}

function errorField(body: Buffer, code: string): string {
  for (const field of body.toString().split('\0')) if (field[0] === code) return field.slice(1)
  return ''
}

const readyStatus = (client: RawClient) => client.until((m) => m.type === 'Z').then((m) => String.fromCharCode(m.body[0]!))

describe('PGlite socket server', () => {
  let server: PgliteServer
  const clients: RawClient[] = []
  const open = async (options?: { startup?: boolean }) => {
    const client = await RawClient.open(server, options)
    clients.push(client)
    return client
  }

  beforeAll(async () => {
    server = await startPgliteServer(undefined, 4)
    const setup = await RawClient.open(server)
    setup.send(query('CREATE TABLE kept (v text)'))
    await readyStatus(setup)
    setup.close()
  }, DATABASE_HOOK_TIMEOUT_MS)
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close()
    await Bun.sleep(20) // the server sees the closes
  })
  afterAll(() => server?.stop())

  test('an exchange runs whole: a second connection waits until the first one syncs', async () => {
    const a = await open()
    const b = await open()
    a.send(parse('SELECT 1'), bind(), flush())
    await a.until((m) => m.type === '2') // BindComplete: A's unnamed portal is bound
    b.send(parse('SELECT 2'), bind(), execute(), sync())
    await Bun.sleep(100)
    expect(b.messages).toEqual([])
    a.send(execute(), sync())
    expect(await readyStatus(a)).toBe('I')
    expect(a.rows()).toEqual(['1'])
    expect(a.errors()).toEqual([])
    expect(await readyStatus(b)).toBe('I')
    expect(b.rows()).toEqual(['2'])
  })

  test('a transaction block runs whole: others wait until it commits', async () => {
    const a = await open()
    const b = await open()
    a.send(query("BEGIN; INSERT INTO kept VALUES ('in-block')"))
    expect(await readyStatus(a)).toBe('T')
    b.send(query('SELECT count(*) FROM kept'))
    await Bun.sleep(100)
    expect(b.messages).toEqual([])
    a.messages.length = 0
    a.send(query('COMMIT'))
    expect(await readyStatus(a)).toBe('I')
    expect(await readyStatus(b)).toBe('I')
    expect(b.rows()).toEqual(['1'])
  })

  test('a connection that goes mid-exchange has it aborted, and the others go on', async () => {
    const a = await open()
    const b = await open()
    a.send(parse("INSERT INTO kept VALUES ('abandoned')"), bind(), execute(), flush())
    await a.until((m) => m.type === 'C') // the INSERT ran, its implicit transaction is open
    b.send(query("SELECT count(*) FROM kept WHERE v = 'abandoned'"))
    a.close()
    expect(await readyStatus(b)).toBe('I')
    expect(b.rows()).toEqual(['0'])
    expect(b.errors()).toEqual([])
  })

  test('a connection that goes inside a transaction block has it rolled back', async () => {
    const a = await open()
    a.send(query("BEGIN; INSERT INTO kept VALUES ('rolled-back')"))
    expect(await readyStatus(a)).toBe('T')
    a.close()
    const b = await open()
    b.send(query("SELECT count(*) FROM kept WHERE v = 'rolled-back'"), query('SELECT 1'))
    await b.until((m) => m.type === 'D' && b.rows().length === 2)
    expect(b.rows()).toEqual(['0', '1'])
  })

  test('a failed exchange skips only its own messages until its Sync', async () => {
    const a = await open()
    const b = await open()
    a.send(parse('SELECT 1/0'), bind(), execute(), flush())
    await a.until((m) => m.type === 'E')
    b.send(parse('SELECT 3'), bind(), execute(), sync())
    await Bun.sleep(50)
    a.send(sync())
    expect(await readyStatus(a)).toBe('I')
    expect(a.errors()).toEqual(['division by zero'])
    expect(await readyStatus(b)).toBe('I')
    expect(b.rows()).toEqual(['3'])
  })

  test('Terminate ends a connection after the messages it sent before, even when they had to wait', async () => {
    const a = await open()
    const b = await open()
    a.send(query('BEGIN'))
    expect(await readyStatus(a)).toBe('T')
    b.send(query("INSERT INTO kept VALUES ('before-terminate')"), frontendMessage('X'))
    await Bun.sleep(50)
    a.messages.length = 0
    a.send(query('COMMIT'))
    expect(await readyStatus(a)).toBe('I')
    await b.gone()
    expect(b.messages.map((m) => m.type)).toEqual(['C', 'Z'])
    const c = await open()
    c.send(query("SELECT count(*) FROM kept WHERE v = 'before-terminate'"))
    await c.until((m) => m.type === 'D')
    expect(c.rows()).toEqual(['1'])
  })

  test('answers an SSLRequest with N, then serves the startup that follows', async () => {
    const client = await open({ startup: false })
    client.requestEncryption()
    await client.until((m) => m.type === 'N')
    client.send(startup(), query('SELECT 4'))
    await client.until((m) => m.type === 'D')
    expect(client.rows()).toEqual(['4'])
  })

  test('refuses a connection beyond its limit with SQLSTATE 53300', async () => {
    const held = await Promise.all([open(), open(), open(), open()])
    const extra = await open({ startup: false })
    const refusal = await extra.until((m) => m.type === 'E')
    expect(errorField(refusal.body, 'C')).toBe('53300')
    await extra.gone()
    held[0]!.send(query('SELECT 5'))
    await held[0]!.until((m) => m.type === 'D')
    expect(held[0]!.rows()).toEqual(['5'])
  })

  test('closes a connection that does not speak the protocol, with a FATAL error', async () => {
    const client = await open()
    client.send(new Uint8Array([0x51, 0, 0, 0, 1]))
    const error = await client.until((m) => m.type === 'E')
    expect(errorField(error.body, 'C')).toBe('08P01')
    await client.gone()
  })
})
