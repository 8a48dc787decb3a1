import { describe, expect, test } from 'bun:test'
import { NoiseSampler } from '../../../../src/proxy/policy/noise-sampler.ts'

describe('NoiseSampler', () => {
  test('samples first: an unsampled request is neither repeated nor counted as skipped, whatever its method', () => {
    const sampler = new NoiseSampler({ sampleRate: 0.5, maxPerSecond: 5, random: () => 0.9 })
    expect(sampler.choose('POST', true)).toBe('unsampled')
    expect(sampler.choose('GET', false)).toBe('unsampled')
  })

  test.each([
    ['GET', false, 'sampled'],
    ['HEAD', false, 'sampled'],
    ['OPTIONS', false, 'sampled'],
    ['POST', false, 'method'],
    ['PUT', false, 'method'],
    ['DELETE', false, 'method'],
    ['PATCH', false, 'method'],
    ['TRACE', false, 'method'],
    ['get', false, 'method'],
    ['OPTIONS', true, 'body'],
    ['GET', true, 'body'],
    ['POST', true, 'method'],
  ] as const)('%s (body: %p) is %p', (method, hadBody, choice) => {
    const sampler = new NoiseSampler({ sampleRate: 1, maxPerSecond: 5 })
    expect(sampler.choose(method, hadBody)).toBe(choice)
  })

  test('a rate of 0 samples nothing and a rate of 1 everything, whatever the random source says', () => {
    const off = new NoiseSampler({ sampleRate: 0, maxPerSecond: 5, random: () => 0 })
    const all = new NoiseSampler({ sampleRate: 1, maxPerSecond: 5, random: () => 0.999 })
    for (let i = 0; i < 20; i++) {
      expect(off.choose('GET', false)).toBe('unsampled')
      expect(all.choose('GET', false)).toBe('sampled')
    }
  })

  test('repeats at most maxPerSecond in any second', () => {
    let now = 0
    const sampler = new NoiseSampler({ sampleRate: 1, maxPerSecond: 2, now: () => now })
    expect([sampler.tryRepeat(), sampler.tryRepeat(), sampler.tryRepeat()]).toEqual([true, true, false])
    now = 1000
    expect([sampler.tryRepeat(), sampler.tryRepeat(), sampler.tryRepeat()]).toEqual([true, true, false])
  })
})
