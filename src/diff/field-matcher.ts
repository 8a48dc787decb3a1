import { globMatches } from '../text/glob.ts'
import type { FieldPath, PathSegment } from './field-path.ts'

/**
 * A set of field paths compiled once into a small NFA (one position per
 * segment of every path, plus an end mark per path), walked one key at a
 * time alongside the document. States are interned and cache their
 * transitions, so walking many records with the same shape costs a map
 * lookup per key. `**` is a position that loops on any key and may also be
 * skipped (zero segments).
 */
export class FieldMatcher {
  /** The state before any key: at the document root. */
  readonly start: MatchState
  /** The state with no live position: nothing below can match. */
  readonly dead: MatchState
  private readonly _segments: (PathSegment | undefined)[] = []
  private readonly _states = new Map<string, MatchState>()

  constructor(readonly paths: readonly FieldPath[]) {
    const starts: number[] = []
    for (const path of paths) {
      starts.push(this._segments.length)
      this._segments.push(...path.segments, undefined)
    }
    this.dead = this._intern([])
    this.start = this._intern(this._closure(starts))
  }

  /**
   * The state after descending into `key`. `caseless` is set for header
   * names (docs/diff.md: header names match case-insensitively).
   */
  step(state: MatchState, key: string, caseless = false): MatchState {
    if (state.positions.length === 0) return state
    const cache = caseless ? state.nextCaseless : state.next
    const known = cache.get(key)
    if (known !== undefined) return known
    const lower = caseless ? key.toLowerCase() : key
    const next: number[] = []
    for (const position of state.positions) {
      const segment = this._segments[position]
      if (segment === undefined) continue
      switch (segment.kind) {
        case 'literal':
          if (caseless ? segment.lower === lower : segment.text === key) next.push(position + 1)
          break
        case 'any':
          next.push(position + 1)
          break
        case 'glob':
          if (caseless ? globMatches(segment.caseless, lower) : globMatches(segment.exact, key)) next.push(position + 1)
          break
        case 'globstar':
          next.push(position)
          break
      }
    }
    const result = this._intern(this._closure(next))
    // Array indices and free-form keys would grow the cache without bound.
    if (cache.size < MAX_CACHED_TRANSITIONS) cache.set(key, result)
    return result
  }

  /**
   * The state after descending into array index `index`. Most states treat
   * every index alike (their segments are `*`, `#`, `**` or non-numeric
   * keys): for those one cached transition serves all indices, without
   * building a key string per element.
   */
  stepIndex(state: MatchState, index: number): MatchState {
    if (state.positions.length === 0) return state
    if (!this.isIndexBlind(state)) return this.step(state, String(index))
    state.anyIndex ??= this.step(state, '0')
    return state.anyIndex
  }

  /** Whether every array index steps from `state` to the same state. */
  isIndexBlind(state: MatchState): boolean {
    state.indexBlind ??= this._indexBlind(state)
    return state.indexBlind
  }

  private _indexBlind(state: MatchState): boolean {
    for (const position of state.positions) {
      const segment = this._segments[position]
      if (segment === undefined || segment.kind === 'any' || segment.kind === 'globstar') continue
      if (segment.kind === 'glob' || /^\d+$/.test(segment.text)) return false
    }
    return true
  }

  /** Follows `**` positions that may match zero segments, then sorts and dedupes. */
  private _closure(positions: number[]): number[] {
    const seen = new Set<number>()
    const stack = [...positions]
    while (stack.length > 0) {
      const position = stack.pop()!
      if (seen.has(position)) continue
      seen.add(position)
      if (this._segments[position]?.kind === 'globstar') stack.push(position + 1)
    }
    return [...seen].sort((a, b) => a - b)
  }

  private _intern(positions: number[]): MatchState {
    const id = positions.join(',')
    let state = this._states.get(id)
    if (state === undefined) {
      const matched = positions.some((position) => this._segments[position] === undefined)
      state = new MatchState(this._states.size, positions, matched)
      this._states.set(id, state)
    }
    return state
  }
}

const MAX_CACHED_TRANSITIONS = 256

/** Where the walk stands in every path at once. */
export class MatchState {
  readonly next = new Map<string, MatchState>()
  readonly nextCaseless = new Map<string, MatchState>()
  /** Whether every array index leads to the same state (see FieldMatcher.stepIndex). */
  indexBlind: boolean | undefined
  /** That state, once computed. */
  anyIndex: MatchState | undefined
  constructor(
    /** Unique within its matcher, for interning combined states. */
    readonly id: number,
    readonly positions: readonly number[],
    /** Some path ends exactly here: this node is named by a field path. */
    readonly matched: boolean,
  ) {}

  /** No path can match this node or anything below it. */
  get dead(): boolean {
    return this.positions.length === 0
  }
}
