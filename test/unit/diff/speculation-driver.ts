/**
 * Run by diff-walk-speculation.test.ts in a process of its own, so that
 * the JIT starts cold: compares `count` pairs of a document of mixed value
 * types, one pair in `every` differing in one number, then prints how
 * often JavaScriptCore had to throw away and recompile the walk's
 * optimised code (`reoptimizationRetryCount`, `bun:jsc`).
 *
 *   bun test/unit/diff/speculation-driver.ts <count> <every>
 */
import { reoptimizationRetryCount } from 'bun:jsc'
import { compareResponses, compileCaptureOptions, DEFAULT_DIFF_CONFIG } from '../../../src/diff/index.ts'
import { DiffWalk } from '../../../src/diff/diff-walk.ts'

const count = Number(process.argv[2])
const every = Number(process.argv[3])

function document(changed: boolean): Uint8Array {
  const text = JSON.stringify({
    data: Array.from({ length: 14 }, (_, i) => ({
      id: 1000 + i,
      sku: `SKU-${i * 7919}`,
      price: changed && i === 2 ? 24.68 : Math.round(i * 1234.5) / 100,
      tags: ['catalog', 'bench'],
      available: i % 2 === 0,
      note: null,
    })),
    pagination: { limit: 14, offset: 0, has_more: false },
  })
  return new TextEncoder().encode(text)
}

const options = compileCaptureOptions({ diff: DEFAULT_DIFF_CONFIG, redactedFields: [] })
const headers = { 'content-type': ['application/json'] }
const same = document(false)
const changed = document(true)
let diffs = 0
for (let i = 1; i <= count; i++) {
  const shadow = i % every === 0 ? changed : same.slice()
  const comparison = compareResponses({ status: 200, headers, body: same }, { status: 200, headers, body: shadow }, options)
  if (comparison.kind === 'diff') diffs++
}
const walk = DiffWalk.prototype as unknown as Record<string, (...args: unknown[]) => unknown>
console.log(JSON.stringify({ diffs, compareObjects: reoptimizationRetryCount(walk._compareObjects!), compare: reoptimizationRetryCount(walk.compare!) }))
