/**
 * fast-check arbitraries and helpers shared by the diff property tests:
 * random JSON (arrays of arrays, unicode keys, keys with "~", "/", "." and
 * wildcard characters), related pairs (the shadow derived from the live
 * document by random edits), and a reference field-path matcher written
 * independently of src/diff.
 */
import fc from 'fast-check'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

/** Keys fast-json-patch refuses (prototype pollution guard) are left out. */
export const key = fc
  .oneof(
    fc.string({ maxLength: 4 }),
    fc.constantFrom(
      '~',
      '/',
      '~1',
      '~0/',
      'a/b',
      'a.b',
      '*',
      '#',
      '?',
      '\\',
      'é',
      'ключ',
      '😀',
      '0',
      '-',
      '',
      'toString',
    ),
  )
  .filter((k) => k !== '__proto__' && k !== 'prototype')

const number = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
)

export const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    fc.string({ maxLength: 6 }),
    fc.array(tie('value'), { maxLength: 6 }),
    fc.dictionary(key, tie('value'), { maxKeys: 5 }),
  ),
})).value

/** Deterministic PRNG for edits driven by a fast-check integer seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = Math.imul(state ^ (state >>> 15), state | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Every container in a value, for picking edit sites. */
function containers(value: Json): Array<Json[] | { [key: string]: Json }> {
  const out: Array<Json[] | { [key: string]: Json }> = []
  const stack: Json[] = [value]
  while (stack.length > 0) {
    const item = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    out.push(item)
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push(child)
  }
  return out
}

/**
 * A copy of `value` with a few random edits: leaves changed, elements
 * inserted, removed and moved, members added and removed.
 */
export function edited(value: Json, seed: number, extra: Json): Json {
  const next = random(seed)
  const copy = structuredClone(value)
  const edits = 1 + Math.floor(next() * 4)
  for (let e = 0; e < edits; e++) {
    const sites = containers(copy)
    if (sites.length === 0) return extra
    const site = sites[Math.floor(next() * sites.length)]!
    const choice = next()
    if (Array.isArray(site)) {
      const at = Math.floor(next() * (site.length + 1))
      if (choice < 0.3) site.splice(at, 0, structuredClone(extra))
      else if (choice < 0.55 && site.length > 0) site.splice(at % site.length, 1)
      else if (choice < 0.75 && site.length > 1) {
        const [moved] = site.splice(at % site.length, 1)
        site.splice(Math.floor(next() * (site.length + 1)), 0, moved!)
      } else if (site.length > 0) site[at % site.length] = structuredClone(extra)
    } else {
      const keys = Object.keys(site)
      if (choice < 0.4 || keys.length === 0)
        site[`k${Math.floor(next() * 5)}`] = structuredClone(extra)
      else if (choice < 0.7) delete site[keys[Math.floor(next() * keys.length)]!]
      else site[keys[Math.floor(next() * keys.length)]!] = structuredClone(extra)
    }
  }
  return copy
}

/** A live document and a shadow derived from it, or two unrelated ones. */
export const pair: fc.Arbitrary<[Json, Json]> = fc.oneof(
  fc.tuple(json, json),
  fc
    .tuple(json, fc.integer(), json)
    .map(([live, seed, extra]): [Json, Json] => [live, edited(live, seed, extra)]),
)

/** Every array shuffled (deterministically from `seed`), at every depth. */
export function shuffled(value: Json, seed: number): Json {
  const next = random(seed)
  const visit = (item: Json): Json => {
    if (typeof item !== 'object' || item === null) return item
    if (Array.isArray(item)) {
      const out = item.map(visit)
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1))
        ;[out[i], out[j]] = [out[j]!, out[i]!]
      }
      return out
    }
    return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, visit(v)]))
  }
  return visit(value)
}

/** Every number moved by less than `limit` (deterministically from `seed`). */
export function perturbed(value: Json, seed: number, limit: number): Json {
  const next = random(seed)
  const visit = (item: Json): Json => {
    if (typeof item === 'number') return item + (next() * 2 - 1) * limit
    if (typeof item !== 'object' || item === null) return item
    if (Array.isArray(item)) return item.map(visit)
    return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, visit(v)]))
  }
  return visit(value)
}

/** One segment of a reference field path. */
export type Segment = { literal: string } | '*' | '#' | '**'

/** Writes segments in the dotted notation, escaping what must be escaped. */
export function renderPath(segments: readonly Segment[]): string {
  return segments
    .map((segment) => {
      if (typeof segment === 'string') return segment
      const escaped = segment.literal.replace(/[\\.*?]/g, (ch) => '\\' + ch)
      return escaped === '#' ? '\\#' : escaped
    })
    .join('.')
}

/**
 * Reference matcher: whether the segments name `path` exactly. A plain
 * backtracking match, independent of src/diff's NFA; header names (the
 * token after a leading "headers") compare case-insensitively.
 */
export function referenceMatch(segments: readonly Segment[], path: readonly string[]): boolean {
  const go = (s: number, p: number): boolean => {
    if (s === segments.length) return p === path.length
    const segment = segments[s]!
    if (segment === '**') return go(s + 1, p) || (p < path.length && go(s, p + 1))
    if (p === path.length) return false
    if (segment === '*' || segment === '#') return go(s + 1, p + 1)
    const caseless = p === 1 && path[0] === 'headers'
    const same = caseless
      ? segment.literal.toLowerCase() === path[p]!.toLowerCase()
      : segment.literal === path[p]
    return same && go(s + 1, p + 1)
  }
  return go(0, 0)
}

/** Whether any of the segment lists names `path` or one of its ancestors. */
export function referenceCovers(
  patterns: readonly (readonly Segment[])[],
  path: readonly string[],
): boolean {
  for (let length = 1; length <= path.length; length++) {
    const prefix = path.slice(0, length)
    if (patterns.some((segments) => referenceMatch(segments, prefix))) return true
  }
  return false
}

/** Every path (reference tokens) in a value, containers included. */
export function allPaths(value: unknown, prefix: string[] = []): string[][] {
  const out: string[][] = [prefix]
  if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) out.push(...allPaths(v, [...prefix, k]))
  }
  return out
}
