import { isJsonContainer } from './large-integer.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { jsonText } from './json-text.ts'
import { SKIPPED, type FilterStep, type PathFilter } from './path-filter.ts'
import { nestsDeeperThan } from './nesting.ts'
import { setOwn } from './own-property.ts'

/**
 * What of a value an operation may carry: an added, removed or replacing
 * value keeps only its compared parts, so ignored and not-included fields
 * (and redacted ones, which are never compared) never appear in a
 * patch, neither as paths nor inside values.
 */

/**
 * Whether `value`, at a node in state `node`, holds anything compared. A
 * fully compared node counts even when empty; a node that is only on the
 * way to an included path counts when something below it is included.
 */
export function hasContent(
  value: unknown,
  node: FilterStep,
  filter: PathFilter | undefined,
  depth: number,
): boolean {
  if (node === SKIPPED) return false
  if (node === undefined || node.include === undefined) return true
  if (!isJsonContainer(value) || depth >= MAX_COMPARE_DEPTH) return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (hasContent(value[i], filter!.childIndex(node, i), filter, depth + 1)) return true
    }
    return false
  }
  const object = value as Record<string, unknown>
  for (const key in object) {
    if (hasContent(object[key], filter!.child(node, key), filter, depth + 1)) return true
  }
  return false
}

/**
 * The compared part of `value` (not copied when nothing is filtered out).
 * Arrays lose their skipped elements, so indices inside a pruned value may
 * differ from the document's. Parts nested past MAX_COMPARE_DEPTH become
 * their JSON text, so callers can always JSON.stringify an operation.
 */
export function prune(
  value: unknown,
  node: FilterStep,
  filter: PathFilter | undefined,
  depth: number,
): unknown {
  if (!isJsonContainer(value)) return value
  if (node === undefined || node === SKIPPED || filter === undefined)
    return boundDepth(value, depth)
  if (depth >= MAX_COMPARE_DEPTH) return jsonText(value, true, filter, node)
  const n = node
  if (Array.isArray(value)) {
    const out: unknown[] = []
    for (let i = 0; i < value.length; i++) {
      const child = filter.childIndex(n, i)
      if (child === SKIPPED || !hasContent(value[i], child, filter, depth + 1)) continue
      out.push(prune(value[i], child, filter, depth + 1))
    }
    return out
  }
  const object = value as Record<string, unknown>
  const out: Record<string, unknown> = {}
  for (const key in object) {
    const child = filter.child(n, key)
    if (child === SKIPPED || !hasContent(object[key], child, filter, depth + 1)) continue
    setOwn(out, key, prune(object[key], child, filter, depth + 1))
  }
  return out
}

/**
 * `value` itself when it nests no deeper than the bound allows at `depth`,
 * else a copy whose parts past the bound are their JSON text.
 */
export function boundDepth(value: unknown, depth: number): unknown {
  if (!nestsDeeperThan(value, MAX_COMPARE_DEPTH - depth)) return value
  return cutAt(value, depth)
}

function cutAt(value: unknown, depth: number): unknown {
  if (!isJsonContainer(value)) return value
  if (depth >= MAX_COMPARE_DEPTH) return jsonText(value, true)
  if (Array.isArray(value)) return value.map((item) => cutAt(item, depth + 1))
  const out: Record<string, unknown> = {}
  for (const key in value as Record<string, unknown>) {
    setOwn(out, key, cutAt((value as Record<string, unknown>)[key], depth + 1))
  }
  return out
}
