import { expect, test } from 'bun:test'
import { failedExchange } from '../../../../src/proxy/sinks/capture-sink.ts'

test('failedExchange: status 0, no headers, the error text as body', () => {
  const at = new Date('2026-11-21T10:00:00Z')
  const exchange = failedExchange('shadow: connection refused', 3, at)
  expect(exchange.status).toBe(0)
  expect(exchange.headers).toEqual({})
  expect(new TextDecoder().decode(exchange.body)).toBe('shadow: connection refused')
  expect(exchange.createdAt).toBe(at)
})
