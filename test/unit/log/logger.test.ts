import { describe, expect, test } from 'bun:test'
import {
  createLogger,
  LOG_FORMATS,
  LOG_LEVELS,
  type LogFormat,
  type LogLevel,
} from '../../../src/log/index.ts'

const NOW = new Date('2026-11-21T10:00:00.000Z')

function capture(level: LogLevel, format: LogFormat) {
  const lines: string[] = []
  const logger = createLogger({ level, format, write: (line) => lines.push(line), now: () => NOW })
  return { logger, lines }
}

describe('createLogger', () => {
  test('defines the levels and formats once, for config validation', () => {
    expect(LOG_LEVELS).toEqual(['debug', 'info', 'warn', 'error'])
    expect(LOG_FORMATS).toEqual(['text', 'json'])
  })

  test('text records look like slog TextHandler output', () => {
    const { logger, lines } = capture('info', 'text')
    logger.info('response diff detected', {
      'request.id': '6a1f3c2e-0b7d-4e8a-9c51-2d4f6b8a0c1e',
      'request.method': 'GET',
      'request.path': '/api/items',
      live_status: 200,
      shadow_status: 500,
      diff: [{ op: 'replace', path: '/status', value: 500 }],
    })
    expect(lines).toEqual([
      'time=2026-11-21T10:00:00.000Z level=INFO msg="response diff detected"' +
        ' request.id=6a1f3c2e-0b7d-4e8a-9c51-2d4f6b8a0c1e request.method=GET request.path=/api/items' +
        ' live_status=200 shadow_status=500' +
        ' diff="[{\\"op\\":\\"replace\\",\\"path\\":\\"/status\\",\\"value\\":500}]"',
    ])
  })

  test('json records are one flat object per line, dotted keys kept as given', () => {
    const { logger, lines } = capture('info', 'json')
    logger.info('request', { 'response.status': 201, 'response.latency': 3.5 })
    expect(lines).toEqual([
      '{"time":"2026-11-21T10:00:00.000Z","level":"INFO","msg":"request","response.status":201,"response.latency":3.5}',
    ])
    expect(JSON.parse(lines[0])).toEqual({
      time: '2026-11-21T10:00:00.000Z',
      level: 'INFO',
      msg: 'request',
      'response.status': 201,
      'response.latency': 3.5,
    })
  })

  test.each<[LogLevel, string[]]>([
    ['debug', ['DEBUG', 'INFO', 'WARN', 'ERROR']],
    ['info', ['INFO', 'WARN', 'ERROR']],
    ['warn', ['WARN', 'ERROR']],
    ['error', ['ERROR']],
  ])('at level %p writes %p', (level, written) => {
    const { logger, lines } = capture(level, 'json')
    logger.debug('d')
    logger.info('i')
    logger.warn('w')
    logger.error('e')
    expect(lines.map((line) => JSON.parse(line).level)).toEqual(written)
    expect(logger.level).toBe(level)
    expect(LOG_LEVELS.filter((l) => logger.enabled(l))).toEqual(
      written.map((name) => name.toLowerCase() as LogLevel),
    )
  })

  test('log takes the level as an argument', () => {
    const { logger, lines } = capture('info', 'text')
    logger.log('warn', 'careful')
    logger.log('debug', 'hidden')
    expect(lines).toEqual(['time=2026-11-21T10:00:00.000Z level=WARN msg=careful'])
  })

  test('child attributes come first, on every record, and nest', () => {
    const { logger, lines } = capture('info', 'text')
    const child = logger.child({ component: 'proxy' }).child({ gate: 'g1' })
    child.info('started', { port: 8080 })
    child.warn('slow')
    logger.info('parent unchanged')
    expect(lines).toEqual([
      'time=2026-11-21T10:00:00.000Z level=INFO msg=started component=proxy gate=g1 port=8080',
      'time=2026-11-21T10:00:00.000Z level=WARN msg=slow component=proxy gate=g1',
      'time=2026-11-21T10:00:00.000Z level=INFO msg="parent unchanged"',
    ])
  })

  test("in json a record's attribute wins over a child's of the same key", () => {
    const { logger, lines } = capture('info', 'json')
    logger.child({ gate: 'from-child' }).info('x', { gate: 'from-record' })
    expect(JSON.parse(lines[0]).gate).toBe('from-record')
  })

  test('leaves out undefined attributes', () => {
    const { logger, lines } = capture('info', 'json')
    logger.info('x', { raw_query: undefined, path: '/a' })
    expect(JSON.parse(lines[0])).toEqual({
      time: NOW.toISOString(),
      level: 'INFO',
      msg: 'x',
      path: '/a',
    })
  })

  test('escapes messages and values that could break a line', () => {
    const { logger, lines } = capture('info', 'text')
    logger.info('two\nlines', { injected: 'x\nlevel=ERROR msg=forged', 'key with space': 1 })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe(
      'time=2026-11-21T10:00:00.000Z level=INFO msg="two\\nlines"' +
        ' injected="x\\nlevel=ERROR msg=forged" "key with space"=1',
    )
  })

  describe('errors', () => {
    const error = new Error('report failed', { cause: new Error('ECONNREFUSED') })

    test.each<[LogFormat]>([['text'], ['json']])(
      'are their message and causes above debug (%s)',
      (format) => {
        const { logger, lines } = capture('info', format)
        logger.error('report', { err: error })
        expect(lines[0]).toContain('report failed: ECONNREFUSED')
        expect(lines[0]).not.toContain('err.stack')
        expect(lines[0]).not.toContain(' at ')
      },
    )

    test('carry their stack as <key>.stack at debug level', () => {
      const { logger, lines } = capture('debug', 'json')
      logger.error('report', { err: error })
      const record = JSON.parse(lines[0])
      expect(record.err).toBe('report failed: ECONNREFUSED')
      expect(record['err.stack']).toContain('report failed')
      expect(record['err.stack']).toContain('logger.test.ts')
    })
  })

  describe('never throws', () => {
    const circular: Record<string, unknown> = { id: 1 }
    circular.self = circular
    const hostile = {
      get boom(): never {
        throw new Error('getter')
      },
    }
    const attrs = {
      circular,
      big: 2n ** 64n,
      nested: { big: 1n },
      hostile,
      sym: Symbol('s'),
      fn: () => 1,
    }

    test.each<[LogFormat]>([['text'], ['json']])(
      'on circular objects, BigInt and throwing getters (%s)',
      (format) => {
        const { logger, lines } = capture('debug', format)
        expect(() => logger.info('weird', attrs)).not.toThrow()
        expect(lines).toHaveLength(1)
        expect(lines[0]).toContain('18446744073709551616')
        expect(lines[0]).toContain('[Circular]')
        if (format === 'json') expect(() => JSON.parse(lines[0])).not.toThrow()
      },
    )

    test('when the attribute object itself is hostile', () => {
      const { logger, lines } = capture('info', 'json')
      const trap = new Proxy(
        {},
        {
          ownKeys() {
            throw new Error('trap')
          },
        },
      )
      logger.info('still here', trap)
      expect(JSON.parse(lines[0])).toMatchObject({ msg: 'still here', '!BADATTRS': 'trap' })
    })

    test('when the writer throws', () => {
      const logger = createLogger({
        level: 'info',
        format: 'text',
        write: () => {
          throw new Error('EPIPE')
        },
      })
      expect(() => logger.info('x')).not.toThrow()
    })

    test('when the clock gives an invalid date', () => {
      const lines: string[] = []
      const logger = createLogger({
        level: 'info',
        format: 'json',
        write: (line) => lines.push(line),
        now: () => new Date(NaN),
      })
      logger.info('x')
      expect(JSON.parse(lines[0]).time).toBe('Invalid Date')
    })
  })

  test('stamps the time of the clock in UTC with milliseconds', () => {
    const lines: string[] = []
    const logger = createLogger({
      level: 'info',
      format: 'text',
      write: (line) => lines.push(line),
    })
    const before = Date.now()
    logger.info('x')
    const time = lines[0].match(/^time=(\S+) /)?.[1] ?? ''
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(Date.parse(time)).toBeGreaterThanOrEqual(before - 1)
  })
})
