/**
 * Sets an own, enumerable data property. Plain assignment of the key
 * `__proto__` would change the object's prototype instead (a JSON body may
 * well contain that key), so that one key is defined explicitly: a redacted
 * `__proto__` field must really become "[REDACTED]".
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    })
  } else {
    target[key] = value
  }
}

/**
 * Whether `key` is an own member of a JSON object, fast: a JSON value is
 * never undefined nor a function, so reading the key answers for every key
 * but `__proto__`, whose inherited accessor returns an object (`in` would
 * also see inherited members such as `toString`).
 */
export function hasOwnMember(target: Record<string, unknown>, key: string): boolean {
  const value = target[key]
  return (
    value !== undefined &&
    typeof value !== 'function' &&
    (key !== '__proto__' || Object.hasOwn(target, key))
  )
}
