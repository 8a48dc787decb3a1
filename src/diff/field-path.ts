/**
 * Field paths in the dotted, gjson-style notation of docs/diff.md
 * "ignored_fields, included_fields, redacted fields", used by ignored_fields,
 * included_fields and redacted_fields:
 *
 * - segments are separated by `.`; a backslash makes the next character
 *   literal (`\.` is a dot inside a key, `\*` a star, `\\` a backslash);
 * - a segment `*` or `#` matches any one key or array index;
 * - `*` and `?` inside a segment glob a key name (`user_*`, `v?`);
 * - a segment `**` matches any depth, zero segments included
 *   (`body.**.updated_at` also names `body.updated_at`);
 * - the first segment is `status`, `headers` or `body`; header names
 *   match case-insensitively, body keys do not.
 */

import { globTokens, type GlobToken } from '../text/glob.ts'

export type PathSegment =
  | { readonly kind: 'literal'; readonly text: string; readonly lower: string }
  | { readonly kind: 'any' }
  | { readonly kind: 'globstar' }
  /** Matched with globMatches (src/text/glob.ts), never a RegExp: keys are what clients send. */
  | { readonly kind: 'glob'; readonly exact: readonly GlobToken[]; readonly caseless: readonly GlobToken[] }

export interface FieldPath {
  readonly source: string
  readonly segments: readonly PathSegment[]
}

/** The roots a field path may start with, one per part of the compared document. */
export const FIELD_PATH_ROOTS = ['status', 'headers', 'body'] as const
export type FieldPathRoot = (typeof FIELD_PATH_ROOTS)[number]

/** A field path that does not follow the notation; `path` is the offending text. */
export class FieldPathError extends Error {
  readonly code = 'invalid-field-path'
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`invalid field path ${JSON.stringify(path)}: ${reason}`)
  }
}

const ANY = Object.freeze({ kind: 'any' }) as PathSegment
const GLOBSTAR = Object.freeze({ kind: 'globstar' }) as PathSegment

/** Parses and validates one field path; throws FieldPathError. */
export function parseFieldPath(source: string): FieldPath {
  // No JSON key worth naming holds one, and the database could not store the path.
  if (source.includes('\0')) throw new FieldPathError(source, 'it contains a NUL character')
  const raw = splitSegments(source)
  const segments = raw.map(toSegment)
  const root = segments[0]
  if (root === undefined || root.kind !== 'literal' || !isRoot(root.text)) {
    throw new FieldPathError(source, 'it must start with "status", "headers." or "body."')
  }
  if (root.text === 'status' && segments.length > 1) {
    throw new FieldPathError(source, '"status" has no fields below it')
  }
  return Object.freeze({ source, segments: Object.freeze(segments) })
}

/** Why a field path is invalid, or undefined when it is fine: for API validation messages. */
export function fieldPathProblem(source: string): string | undefined {
  try {
    parseFieldPath(source)
    return undefined
  } catch (error) {
    if (error instanceof FieldPathError) return error.message
    throw error
  }
}

interface RawSegment {
  text: string
  /** Positions in `text` of `*` and `?` that were not escaped. */
  wild: number[]
  /** Whether any character of the segment was escaped (`\#` is a literal key). */
  escaped: boolean
}

function splitSegments(source: string): RawSegment[] {
  const out: RawSegment[] = []
  let text = ''
  let wild: number[] = []
  let escaped = false
  for (let i = 0; i < source.length; i++) {
    const ch = source[i]
    if (ch === '\\') {
      if (i + 1 >= source.length) throw new FieldPathError(source, 'it ends with a lone "\\"')
      text += source[++i]
      escaped = true
    } else if (ch === '.') {
      if (text === '') throw new FieldPathError(source, 'it has an empty segment')
      out.push({ text, wild, escaped })
      text = ''
      wild = []
      escaped = false
    } else {
      if (ch === '*' || ch === '?') wild.push(text.length)
      text += ch
    }
  }
  if (text === '') throw new FieldPathError(source, 'it has an empty segment')
  out.push({ text, wild, escaped })
  return out
}

function toSegment({ text, wild, escaped }: RawSegment): PathSegment {
  // `#` is gjson's "any array element"; written `\#` it is a literal key.
  if (text === '#' && !escaped) return ANY
  if (wild.length === 0) return { kind: 'literal', text, lower: text.toLowerCase() }
  if (text === '**' && wild.length === 2) return GLOBSTAR
  if (text === '*') return ANY
  const exact = globTokens(text, new Set(wild))
  return {
    kind: 'glob',
    exact,
    caseless: exact.map((token) => (typeof token === 'string' ? token.toLowerCase() : token)),
  }
}

function isRoot(text: string): text is FieldPathRoot {
  return (FIELD_PATH_ROOTS as readonly string[]).includes(text)
}

