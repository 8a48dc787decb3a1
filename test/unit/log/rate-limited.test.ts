import { describe, expect, test } from 'bun:test'
import { createLogger, rateLimited, type LogLevel } from '../../../src/log/index.ts'

function setup(level: LogLevel = 'info') {
  let now = 0
  const records: Array<Record<string, unknown>> = []
  const logger = createLogger({
    level,
    format: 'json',
    write: (line) => records.push(JSON.parse(line)),
    now: () => new Date(0),
  })
  const limited = rateLimited(logger, 1000, { now: () => now })
  return { limited, records, advance: (ms: number) => (now += ms) }
}

describe('rateLimited', () => {
  test('writes the first record, then one per interval with the suppressed count', () => {
    const { limited, records, advance } = setup()
    for (let i = 0; i < 123; i++) limited.warn('comparison dropped: callbacks full', { limit: 200 })
    advance(1000)
    limited.warn('comparison dropped: callbacks full', { limit: 200 })
    expect(
      records.map(({ level, msg, limit, suppressed }) => ({ level, msg, limit, suppressed })),
    ).toEqual([
      {
        level: 'WARN',
        msg: 'comparison dropped: callbacks full',
        limit: 200,
        suppressed: undefined,
      },
      { level: 'WARN', msg: 'comparison dropped: callbacks full', limit: 200, suppressed: 122 },
    ])
  })

  test('makes the attributes of written records only: a flood of suppressed ones makes none', () => {
    const { limited, records, advance } = setup()
    let made = 0
    const attrs = (n: number) => () => {
      made++
      return { n }
    }
    for (let i = 0; i < 1000; i++) limited.warn('comparison failed', attrs(i))
    expect(made).toBe(1)
    advance(1000)
    limited.warn('comparison failed', attrs(1000))
    // Suppressed in the next interval: made at the flush, the last one's.
    limited.warn('comparison failed', attrs(1001))
    limited.warn('comparison failed', attrs(1002))
    expect(made).toBe(2)
    limited.flush()
    expect(made).toBe(3)
    expect(records.map(({ n, suppressed }) => [n, suppressed])).toEqual([
      [0, undefined],
      [1000, 999],
      [1002, 2],
    ])
  })

  test('flush writes the last record held back, its level and message included, per key', () => {
    const { limited, records } = setup()
    limited.warn('flood', { n: 0 }, 'k')
    limited.warn('flood', { n: 1 }, 'k')
    limited.error('flood, worse', { n: 2 }, 'k')
    limited.warn('other', { n: 3 })
    limited.warn('other', { n: 4 })
    limited.flush()
    expect(records.map(({ level, msg, n, suppressed }) => [level, msg, n, suppressed])).toEqual([
      ['WARN', 'flood', 0, undefined],
      ['WARN', 'other', 3, undefined],
      ['ERROR', 'flood, worse', 2, 2],
      ['WARN', 'other', 4, 1],
    ])
  })

  test('past maxKeys the held record dropped is the one whose key the throttle dropped: the others are still written at flush', () => {
    const records: Array<Record<string, unknown>> = []
    const logger = createLogger({ level: 'info', format: 'json', write: (line) => records.push(JSON.parse(line)), now: () => new Date(0) })
    const limited = rateLimited(logger, 1000, { now: () => 0, maxKeys: 2 })
    limited.warn('a', { n: 1 })
    limited.warn('a', { n: 2 })
    limited.warn('b', { n: 3 })
    limited.warn('b', { n: 4 })
    // `a` held again: still the key held longest, as the throttle still has it first.
    limited.warn('a', { n: 5 })
    limited.warn('c', { n: 6 })
    limited.warn('c', { n: 7 })
    limited.flush()
    expect(records.map(({ msg, n, suppressed }) => [msg, n, suppressed])).toEqual([
      ['a', 1, undefined],
      ['b', 3, undefined],
      ['c', 6, undefined],
      ['b', 4, 1],
      ['c', 7, 1],
    ])
  })

  test('throttles per key, the message by default', () => {
    const { limited, records } = setup()
    limited.warn('breaker open')
    limited.warn('callbacks full')
    limited.warn('breaker open')
    limited.error('report failed', { gate: 'a' }, 'report:a')
    limited.error('report failed', { gate: 'b' }, 'report:b')
    limited.error('report failed', { gate: 'a' }, 'report:a')
    expect(records.map((r) => [r.msg, r.gate])).toEqual([
      ['breaker open', undefined],
      ['callbacks full', undefined],
      ['report failed', 'a'],
      ['report failed', 'b'],
    ])
  })

  test('flush writes the tail of a flood with its count', () => {
    const { limited, records } = setup()
    limited.warn('breaker open', { state: 'open' })
    limited.warn('breaker open', { state: 'open' })
    limited.warn('breaker open', { state: 'open' })
    limited.flush()
    limited.flush()
    expect(records.slice(1)).toEqual([
      {
        time: new Date(0).toISOString(),
        level: 'WARN',
        msg: 'breaker open',
        state: 'open',
        suppressed: 2,
      },
    ])
  })

  test('records below the level neither write nor count', () => {
    const { limited, records, advance } = setup('warn')
    limited.info('noise')
    limited.info('noise')
    advance(1000)
    limited.flush()
    expect(records).toEqual([])
  })

  test('offers every level', () => {
    const { limited, records } = setup('debug')
    limited.debug('d')
    limited.info('i')
    limited.warn('w')
    limited.error('e')
    limited.log('warn', 'l')
    expect(records.map((r) => r.level)).toEqual(['DEBUG', 'INFO', 'WARN', 'ERROR', 'WARN'])
  })
})
