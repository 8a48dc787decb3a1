/**
 * Whether containers nest more than `levels` deep inside `value`. The
 * recursion never goes deeper than `levels`, so callers keep it small.
 */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false
  if (levels <= 0) return true
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item = value[i]
      if (typeof item === 'object' && item !== null && nestsDeeperThan(item, levels - 1))
        return true
    }
    return false
  }
  const object = value as Record<string, unknown>
  for (const key in object) {
    const item = object[key]
    if (typeof item === 'object' && item !== null && nestsDeeperThan(item, levels - 1)) return true
  }
  return false
}
