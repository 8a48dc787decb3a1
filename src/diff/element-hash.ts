import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { SKIPPED, type ComparedNode, type FilterStep, type PathFilter } from './path-filter.ts'

/**
 * A 32-bit identity of a JSON value for the array alignment: equal values
 * always get equal hashes (key order does not matter), different values
 * usually get different ones. A collision is harmless for correctness: the
 * alignment treats the two elements as the same element and diffs them
 * recursively, so the patch stays valid, only possibly larger.
 *
 * Cheap on purpose, since every element of an unaligned stretch is hashed:
 * only `levels` levels of containers are read (below that a container
 * counts by its kind and length), and strings and keys are sampled. A
 * record's own fields usually tell it from its neighbours; array-align.ts
 * reads deeper when they do not. With a float tolerance numbers are hashed
 * by tolerance-wide bucket; with a path filter, ignored and not-included
 * members do not count.
 */
export interface ElementHashOptions {
  /** float_tolerance; 0 hashes numbers exactly. */
  readonly tolerance: number
  readonly filter: PathFilter | undefined
}

export function elementHash(
  value: unknown,
  options: ElementHashOptions,
  node: ComparedNode,
  depth: number,
  levels: number,
): number {
  if (typeof value !== 'object' || value === null)
    return primitiveHash(value, options.tolerance)
  // Past the bound the subtree is compared as text anyway; its shape is enough.
  if (depth >= MAX_COMPARE_DEPTH) return DEEP_SEED
  const filter = node === undefined ? undefined : options.filter
  if (Array.isArray(value)) {
    let h = ARRAY_SEED ^ value.length
    if (levels <= 0) return h
    for (let i = 0; i < value.length; i++) {
      let child: FilterStep = undefined
      if (filter !== undefined) {
        child = filter.childIndex(node!, i)
        if (child === SKIPPED) continue
      }
      const item = value[i]
      const itemHash =
        typeof item !== 'object' || item === null
          ? primitiveHash(item, options.tolerance)
          : elementHash(item, options, child, depth + 1, levels - 1)
      h = Math.imul(h ^ itemHash, 0x01000193)
    }
    return mix(h)
  }
  if (levels <= 0) return OBJECT_SEED
  // A commutative sum over members, so key order does not change the result.
  const object = value as Record<string, unknown>
  let sum = 0
  let count = 0
  for (const key in object) {
    let child: FilterStep = undefined
    if (filter !== undefined) {
      child = filter.child(node!, key)
      if (child === SKIPPED) continue
    }
    const member = object[key]
    const memberHash =
      typeof member !== 'object' || member === null
        ? primitiveHash(member, options.tolerance)
        : elementHash(member, options, child, depth + 1, levels - 1)
    sum = (sum + Math.imul(hashKey(key) ^ memberHash, 0x9e3779b1)) | 0
    count++
  }
  return mix(OBJECT_SEED ^ sum ^ Math.imul(count, 0x85ebca6b))
}

function primitiveHash(value: unknown, tolerance: number): number {
  switch (typeof value) {
    case 'string':
      return hashString(value)
    case 'number':
      // With a tolerance, numbers hash by which tolerance-wide bucket they
      // fall in: near-equal numbers usually align; the few split by a bucket
      // edge meet again when their gap is paired.
      return hashNumber(tolerance === 0 ? value : Math.round(value / tolerance))
    case 'boolean':
      return value ? TRUE_SEED : FALSE_SEED
    default:
      return NULL_SEED
  }
}

const NULL_SEED = 0x2b7e1516
const TRUE_SEED = 0x28aed2a6
const FALSE_SEED = 0x3c4fcf09
const NUMBER_SEED = 0x7f4a7c15
const ARRAY_SEED = 0x5bd1e995
const OBJECT_SEED = 0x1b873593
const DEEP_SEED = 0x68e31da4

/** A key by its length and three characters: keys of one object rarely agree on all four. */
function hashKey(key: string): number {
  const length = key.length
  if (length === 0) return 0
  return (
    (length << 16) ^
    (key.charCodeAt(0) << 8) ^
    key.charCodeAt(length - 1) ^
    (key.charCodeAt(length >> 1) << 20)
  )
}

/**
 * A string by its length and three characters (both ends and the middle).
 * Measured: reading more characters made string hashing the largest cost
 * of a whole diff, while values that differ only elsewhere are rare among
 * the fields that tell records apart, and a collision only costs patch size.
 */
export function hashString(text: string): number {
  const length = text.length
  if (length === 0) return 0x811c9dc5
  let h = Math.imul(0x811c9dc5 ^ length, 0x01000193)
  h = Math.imul(h ^ text.charCodeAt(0), 0x01000193)
  h = Math.imul(h ^ text.charCodeAt(length >> 1), 0x01000193)
  return Math.imul(h ^ text.charCodeAt(length - 1), 0x01000193)
}

/**
 * A string read in full (spread samples past 1024 characters), for strings
 * that are whole array elements: there nothing else tells them apart, and
 * timestamps, for one, differ only in the middle.
 */
export function hashWholeString(text: string): number {
  const length = text.length
  let h = 0x811c9dc5 ^ length
  const step = length <= 1024 ? 1 : length / 1024
  for (let i = 0; i < length; i += step) h = Math.imul(h ^ text.charCodeAt(i | 0), 0x01000193)
  return h
}

const FLOAT = new Float64Array(1)
const WORDS = new Int32Array(FLOAT.buffer)

function hashNumber(value: number): number {
  if ((value | 0) === value) return Math.imul(value ^ NUMBER_SEED, 0x9e3779b1)
  FLOAT[0] = value
  return Math.imul(WORDS[0]! ^ NUMBER_SEED, 0x9e3779b1) ^ WORDS[1]!
}

/** Murmur3's finaliser: spreads every input bit over the result. */
function mix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  return h ^ (h >>> 16)
}
