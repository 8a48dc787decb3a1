import { FieldMatcher, type MatchState } from './field-matcher.ts'
import type { FieldPath } from './field-path.ts'

/**
 * Which parts of a document are compared (docs/diff.md "ignored_fields,
 * included_fields, redacted fields"): included_fields first (when non-empty,
 * only those paths and their descendants), then ignored_fields removed from
 * what is left. Redacted fields join the ignored set: they are never compared.
 *
 * A walk carries one FilterStep per visited node:
 * - `undefined` (free): everything below is compared, no more matching;
 * - `SKIPPED`: nothing below is compared;
 * - a FilterNode: still matching; `include` is set while the node is only on
 *   the way to an included path ("partial": its own presence is not compared).
 */
export class FilterNode {
  /** Transitions already taken from this node, by key. */
  readonly next = new Map<string, FilterStep>()
  /** Whether every array index leads to the same state (see FieldMatcher.stepIndex). */
  indexBlind: boolean | undefined
  constructor(
    /** Include-state while partial; undefined once an included path matched. */
    readonly include: MatchState | undefined,
    /** Ignore-state; undefined once no ignored path can match below. */
    readonly ignore: MatchState | undefined,
    /** The node is `/headers`: its keys are header names, matched case-insensitively. */
    readonly headerNames: boolean,
  ) {}
}

/** A symbol, not a number: comparing a step with it is a pointer test the JIT never has to guess types for. */
export const SKIPPED: unique symbol = Symbol('skipped')
export type FilterStep = FilterNode | undefined | typeof SKIPPED
/** The state of a node that is compared (at least partly): never SKIPPED. */
export type ComparedNode = FilterNode | undefined

/** Array indices and free-form keys would grow a transition cache without bound. */
const MAX_CACHED_TRANSITIONS = 256

export class PathFilter {
  readonly root: FilterNode
  private readonly _include: FieldMatcher | undefined
  private readonly _ignore: FieldMatcher | undefined
  private readonly _nodes = new Map<string, FilterNode>()

  private constructor(included: readonly FieldPath[], ignored: readonly FieldPath[]) {
    this._include = included.length > 0 ? new FieldMatcher(included) : undefined
    this._ignore = ignored.length > 0 ? new FieldMatcher(ignored) : undefined
    this.root = new FilterNode(this._include?.start, this._ignore?.start, false)
  }

  /** A filter, or undefined when both lists are empty (then nothing is filtered). */
  static compile(
    included: readonly FieldPath[],
    ignored: readonly FieldPath[],
  ): PathFilter | undefined {
    if (included.length === 0 && ignored.length === 0) return undefined
    return new PathFilter(included, ignored)
  }

  /** The filter state of the child `key` of a node in state `node`. */
  child(node: FilterNode, key: string): FilterStep {
    const known = node.next.get(key)
    if (known !== undefined || node.next.has(key)) return known
    const result = this._child(node, key)
    if (node.next.size < MAX_CACHED_TRANSITIONS) node.next.set(key, result)
    return result
  }

  /** The filter state of array element `index` (see FieldMatcher.stepIndex). */
  childIndex(node: FilterNode, index: number): FilterStep {
    node.indexBlind ??=
      (node.include === undefined || this._include!.isIndexBlind(node.include)) &&
      (node.ignore === undefined || this._ignore!.isIndexBlind(node.ignore))
    // Index-blind: every index steps alike, so one cached key serves all.
    return this.child(node, node.indexBlind ? '0' : String(index))
  }

  private _child(node: FilterNode, key: string): FilterStep {
    const caseless = node.headerNames
    let ignore: MatchState | undefined
    if (node.ignore !== undefined) {
      ignore = this._ignore!.step(node.ignore, key, caseless)
      if (ignore.matched) return SKIPPED
      if (ignore.dead) ignore = undefined
    }
    let include: MatchState | undefined
    if (node.include !== undefined) {
      include = this._include!.step(node.include, key, caseless)
      if (include.matched) include = undefined
      else if (include.dead) return SKIPPED
    }
    const headerNames = node === this.root && key === 'headers'
    if (include === undefined && ignore === undefined) return undefined
    const id = `${include?.id ?? -1} ${ignore?.id ?? -1} ${headerNames}`
    let interned = this._nodes.get(id)
    if (interned === undefined) {
      interned = new FilterNode(include, ignore, headerNames)
      this._nodes.set(id, interned)
    }
    return interned
  }
}
