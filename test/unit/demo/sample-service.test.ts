import { describe, expect, test } from 'bun:test'
import { clockReading } from '../../../src/demo/sample-service.ts'
import { valueShape } from '../../../src/insights/value-shape.ts'

describe('clockReading', () => {
  test('never the same twice, even within one millisecond, and always a timestamp to the insights', () => {
    const readings = Array.from({ length: 2000 }, clockReading)
    expect(new Set(readings).size).toBe(readings.length)
    for (const reading of readings.slice(0, 50)) {
      expect(reading).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/)
      expect(Math.abs(Date.parse(reading) - Date.now())).toBeLessThan(60_000)
      expect(valueShape(reading)).toBe('timestamp')
    }
  })
})
