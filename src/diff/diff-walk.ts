import { isLargeInteger, sameLargeNumber } from './large-integer.ts'
import { alignMiddle, STEP_ADD, STEP_PAIR, STEP_REMOVE } from './array-align.ts'
import { equalWithin } from './deep-equal.ts'
import { MAX_COMPARE_DEPTH } from './depth-limit.ts'
import { jsonText } from './json-text.ts'
import type { PatchOp } from './patch-op.ts'
import { SKIPPED, type ComparedNode, type FilterStep, type PathFilter } from './path-filter.ts'
import { formatPointer } from './pointer.ts'
import { hasContent, prune } from './prune.ts'
import type { ElementHashOptions } from './element-hash.ts'

export interface WalkOptions {
  readonly tolerance: number
  readonly filter: PathFilter | undefined
  readonly elementHash: ElementHashOptions
}

type Json = Record<string, unknown>

/** Nodes one trimming equality test may visit (deep-equal.ts, equalWithin). */
const TRIM_BUDGET = 4096

/**
 * One comparison of two JSON values, emitting RFC 6902 operations in the
 * order they apply to the live document (RFC 6902 section 3: operations are
 * applied sequentially, each to the result of the previous one).
 *
 * The current path is kept as reference tokens in one shared array and only
 * turned into a pointer (RFC 6901) when an operation is emitted. Recursion
 * is bounded by MAX_COMPARE_DEPTH: deeper subtrees are compared as text.
 */
export class DiffWalk {
  readonly ops: PatchOp[] = []
  private readonly _keys: (string | number)[] = []
  private readonly _tolerance: number
  private readonly _filter: PathFilter | undefined

  constructor(private readonly _options: WalkOptions) {
    this._tolerance = _options.tolerance
    this._filter = _options.filter
  }

  /**
   * Compares `a` (live) with `b` (shadow) at the node `keys[0..depth)`,
   * whose filter state is `node` (never SKIPPED here).
   */
  compare(a: unknown, b: unknown, depth: number, node: ComparedNode): void {
    if (a === b) return
    if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
      const isArray = Array.isArray(a)
      if (isArray === Array.isArray(b) && (isArray || (!isLargeInteger(a) && !isLargeInteger(b)))) {
        if (depth >= MAX_COMPARE_DEPTH) return this._compareText(a, b, depth, node)
        if (isArray) this._compareArrays(a as unknown[], b as unknown[], depth, node)
        else this._compareObjects(a as Json, b as Json, depth, node)
        return
      }
      // An integer past 2^53 is a leaf (large-integer.ts).
      if (sameLargeNumber(a, b, this._tolerance)) return
    } else if (typeof a === 'number' && typeof b === 'number') {
      // float_tolerance: two numbers differ only if |a - b| > tolerance.
      if (Math.abs(a - b) <= this._tolerance) return
    } else if (sameLargeNumber(a, b, this._tolerance)) {
      return
    }
    this._replace(a, b, depth, node)
  }

  private _compareObjects(a: Json, b: Json, depth: number, node: ComparedNode): void {
    const filter = node === undefined ? undefined : this._filter
    const keys = this._keys
    let shared = 0
    for (const key in a) {
      const y = b[key]
      // Same test as hasOwnMember, inlined on the hottest loop.
      const inB =
        y !== undefined && typeof y !== 'function' && (key !== '__proto__' || Object.hasOwn(b, key))
      if (inB) shared++
      let child: FilterStep = undefined
      if (filter !== undefined) {
        child = filter.child(node!, key)
        if (child === SKIPPED) continue
      }
      const x = a[key]
      if (!inB) {
        keys[depth] = key
        this._remove(x, depth + 1, child)
      } else if (typeof x === 'string' && typeof y === 'string') {
        // Leaves by type, each read again where only that type is read: one
        // `x !== y` for all of them had its operands typed by the JIT from the
        // values it last saw there (the status, the header lists), and a
        // string or a fraction failed that guess at every differing response,
        // recompiled with the same guess (docs/proxy.md "The diff path").
        if ((a[key] as string) !== (b[key] as string)) {
          keys[depth] = key
          this._replace(x, y, depth + 1, child)
        }
      } else if (typeof x === 'number' && typeof y === 'number') {
        // As compare's float_tolerance (never negative or NaN: CompiledDiffConfig); JSON has no
        // NaN, and Infinity - Infinity (equal) is NaN, never above it.
        if (Math.abs((a[key] as number) - (b[key] as number)) > this._tolerance) {
          keys[depth] = key
          this._replace(x, y, depth + 1, child)
        }
      } else if (x !== y) {
        keys[depth] = key
        this.compare(x, y, depth + 1, child)
      }
    }
    let countB = 0
    for (const _ in b) countB++
    if (countB === shared) return
    for (const key in b) {
      const x = a[key]
      if (
        x !== undefined &&
        typeof x !== 'function' &&
        (key !== '__proto__' || Object.hasOwn(a, key))
      ) {
        continue
      }
      let child: FilterStep = undefined
      if (filter !== undefined) {
        child = filter.child(node!, key)
        if (child === SKIPPED) continue
      }
      keys[depth] = key
      this._add(b[key], depth + 1, child)
    }
  }

  /**
   * Arrays in order: equal ends trimmed, the middle aligned (array-align.ts).
   * `position` is where the next element sits in the array as patched so
   * far, which is the index every operation must use: a remove leaves it
   * in place, an add or a compared pair moves it on.
   */
  private _compareArrays(a: unknown[], b: unknown[], depth: number, node: ComparedNode): void {
    const lengthA = a.length
    const lengthB = b.length
    const shorter = lengthA < lengthB ? lengthA : lengthB
    // Trim equal ends. An element too large to tell cheaply stops the
    // trimming; the alignment then pairs it and the pair's walk decides.
    let start = 0
    while (start < shorter) {
      const x = a[start]
      const y = b[start]
      if (x !== y && equalWithin(x, y, depth + 1, TRIM_BUDGET, this._tolerance) !== true) break
      start++
    }
    let endA = lengthA
    let endB = lengthB
    while (endA > start && endB > start) {
      const x = a[endA - 1]
      const y = b[endB - 1]
      if (x !== y && equalWithin(x, y, depth + 1, TRIM_BUDGET, this._tolerance) !== true) break
      endA--
      endB--
    }
    if (start === endA && start === endB) return
    const steps = alignMiddle(a, b, start, endA, endB, this._options.elementHash, node, depth)
    const filter = node === undefined ? undefined : this._filter
    const keys = this._keys
    let position = start
    for (let s = 0; s < steps.length; s += 3) {
      keys[depth] = position
      let child: FilterStep = undefined
      if (filter !== undefined) child = filter.childIndex(node!, position)
      switch (steps[s]) {
        case STEP_PAIR:
          if (child !== SKIPPED) this.compare(a[steps[s + 1]!], b[steps[s + 2]!], depth + 1, child)
          position++
          break
        case STEP_REMOVE:
          // An element whose removal is not reported stays in the patched array.
          if (child === SKIPPED || !this._remove(a[steps[s + 1]!], depth + 1, child)) position++
          break
        case STEP_ADD:
          if (child !== SKIPPED && this._add(b[steps[s + 2]!], depth + 1, child)) position++
          break
      }
    }
  }

  /**
   * Subtrees past the depth bound: canonical text equality, one replace by
   * text. Filtered parts (ignored, redacted, not included) are left out of
   * both texts, so they neither differ nor show up in the value.
   */
  private _compareText(a: unknown, b: unknown, depth: number, node: ComparedNode): void {
    const shadowText = jsonText(b, true, this._filter, node)
    if (jsonText(a, true, this._filter, node) === shadowText) return
    this.ops.push({ op: 'replace', path: formatPointer(this._keys, depth), value: shadowText })
  }

  private _replace(a: unknown, b: unknown, depth: number, node: ComparedNode): void {
    const filter = this._filter
    if (node !== undefined && node.include !== undefined) {
      // A node only on the way to an included path: report the change only
      // if something included is on either side.
      if (!hasContent(a, node, filter, depth) && !hasContent(b, node, filter, depth)) return
    }
    this.ops.push({
      op: 'replace',
      path: formatPointer(this._keys, depth),
      value: prune(b, node, filter, depth),
    })
  }

  private _remove(a: unknown, depth: number, node: ComparedNode): boolean {
    if (node !== undefined && !hasContent(a, node, this._filter, depth)) return false
    this.ops.push({ op: 'remove', path: formatPointer(this._keys, depth) })
    return true
  }

  private _add(b: unknown, depth: number, node: ComparedNode): boolean {
    if (node !== undefined && !hasContent(b, node, this._filter, depth)) return false
    this.ops.push({
      op: 'add',
      path: formatPointer(this._keys, depth),
      value: prune(b, node, this._filter, depth),
    })
    return true
  }
}
