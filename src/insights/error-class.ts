/**
 * Why an upstream failed, in a few classes an error signature groups by
 * (docs/insights.md "Signatures"). A failed side is stored with status 0
 * and its error text as body (docs/diff.md); the class is read back from
 * that text, so a capture stored long ago classifies as a new one does.
 */
export const ERROR_CLASSES = [
  'timeout',
  'refused',
  'reset',
  'too_large',
  'bad_response',
  'error',
] as const
export type ErrorClass = (typeof ERROR_CLASSES)[number]

/**
 * The class of an error text such as `shadow: timed out after 1s` or
 * `live: connection refused`: the text after an optional `shadow: ` or
 * `live: ` is matched by how it starts; anything else is `error`.
 */
export function errorClassOf(errorText: string): ErrorClass {
  const text = errorText.trimStart().replace(SIDE_PREFIX, '')
  for (const [start, errorClass] of STARTS) if (text.startsWith(start)) return errorClass
  return 'error'
}

const SIDE_PREFIX = /^(?:shadow|live): /

// How src/proxy/upstream/upstream-error.ts and the response readers word each failure.
const STARTS: ReadonlyArray<readonly [string, ErrorClass]> = [
  ['timed out', 'timeout'],
  ['connection refused', 'refused'],
  ['connection reset', 'reset'],
  ['response too large', 'too_large'],
  ['bad response', 'bad_response'],
]
