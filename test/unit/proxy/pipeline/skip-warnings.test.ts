import { describe, expect, test } from 'bun:test'
import { createLogger, rateLimited } from '../../../../src/log/index.ts'
import { ByteBudget } from '../../../../src/proxy/policy/byte-budget.ts'
import { SkipWarnings } from '../../../../src/proxy/pipeline/skip-warnings.ts'

function setup() {
  let now = 0
  const records: Array<Record<string, unknown>> = []
  const logger = createLogger({ level: 'info', format: 'json', write: (line) => records.push(JSON.parse(line)), now: () => new Date(0) })
  const warnings = rateLimited(logger, 1000, { now: () => now })
  const budget = new ByteBudget(1000)
  return { warnings, budget, records, skips: new SkipWarnings(warnings, 200, budget), advance: (ms: number) => (now += ms) }
}

const fields = ({ msg, suppressed, ...rest }: Record<string, unknown>) => ({ msg, suppressed, path: rest['request.path'], method: rest['request.method'], ...rest })

describe('SkipWarnings', () => {
  test('writes the first skip of each kind with its request, the path without its query', () => {
    const { skips, budget, records } = setup()
    budget.open().add(700)
    skips.callbacksFull('GET', '/a?token=secret')
    skips.budgetFull('POST', '/b?k=v')
    expect(records.map(fields)).toEqual([
      expect.objectContaining({ msg: 'comparison dropped: too many background comparisons', method: 'GET', path: '/a', max_concurrent_callbacks: 200 }),
      expect.objectContaining({ msg: 'comparison dropped: the bytes-in-flight budget is full', method: 'POST', path: '/b', max_bytes_in_flight: 1000, bytes_in_flight: 700 }),
    ])
    expect(JSON.stringify(records)).not.toContain('secret')
  })

  test('the held record of each kind is the last request of that kind, with the budget as it was then', () => {
    const { skips, budget, warnings, records } = setup()
    skips.callbacksFull('GET', '/first')
    skips.budgetFull('GET', '/first-budget')
    const reservation = budget.open()
    reservation.add(300)
    skips.callbacksFull('GET', '/second')
    skips.budgetFull('PUT', '/last-budget')
    reservation.add(200)
    // Another kind after it must not change the held budget record.
    skips.callbacksFull('DELETE', '/last')
    warnings.flush()
    expect(records.slice(2).map(fields)).toEqual([
      expect.objectContaining({ msg: 'comparison dropped: too many background comparisons', method: 'DELETE', path: '/last', suppressed: 2 }),
      expect.objectContaining({ msg: 'comparison dropped: the bytes-in-flight budget is full', method: 'PUT', path: '/last-budget', bytes_in_flight: 300, suppressed: 1 }),
    ])
  })

  test('after an interval the next skip is written with the count held back', () => {
    const { skips, records, advance } = setup()
    for (let i = 0; i < 50; i++) skips.callbacksFull('GET', `/n/${i}`)
    advance(1000)
    skips.callbacksFull('GET', '/n/50')
    expect(records.map(fields).map(({ path, suppressed }) => [path, suppressed])).toEqual([
      ['/n/0', undefined],
      ['/n/50', 49],
    ])
  })
})
