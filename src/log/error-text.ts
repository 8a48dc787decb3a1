/** Error chains deeper than this are cut, and a cycle of causes ends. */
const MAX_CAUSES = 5

/**
 * An error as one line: its message (prefixed with its name unless it is a
 * plain `Error`), then each `cause`, joined with `: ` as Go wraps errors.
 * Never the stack; the logger adds that separately, at debug level only.
 */
export function errorText(error: Error): string {
  let text = describe(error)
  let cause: unknown = error.cause
  for (let depth = 0; cause !== undefined && depth < MAX_CAUSES; depth++) {
    text += `: ${cause instanceof Error ? describe(cause) : primitiveText(cause)}`
    cause = cause instanceof Error ? cause.cause : undefined
  }
  return text
}

function describe(error: Error): string {
  const message = String(error.message) || String(error.name)
  return error.name && error.name !== 'Error' ? `${error.name}: ${message}` : message
}

function primitiveText(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}
