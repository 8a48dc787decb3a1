/**
 * `NAME=value,NAME=value` as an object: how the benchmarks take settings
 * for the proxies they start (`PROXY_BENCH_ENV`, `PROXY_CPU_OURS_ENV`,
 * `PROXY_TAIL_ENV`...). A pair without `=` is passed over; a value may
 * hold `=`.
 */
export function envPairs(text: string | undefined): Record<string, string> {
  return Object.fromEntries(
    (text ?? '')
      .split(',')
      .map((pair) => pair.trim())
      .filter((pair) => pair.includes('='))
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  )
}
