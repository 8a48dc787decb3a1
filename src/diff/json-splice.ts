import { parseJson } from './large-integer.ts'
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from './depth-scan.ts'

/**
 * The shadow's body parsed from live's parse, when the two UTF-8 bodies
 * differ only inside one container below the top level: what JSON.parse
 * would give for the whole shadow, but only that container of it is
 * decoded and parsed (docs/diff.md "Bodies that differ in one place").
 *
 * A candidate usually answers live's document with a value or two changed,
 * and decoding and parsing both documents whole was most of what a
 * differing response cost. Here the bytes the two have in common at the
 * start locate the change; one scan of live's bytes, up to the end of the
 * innermost container open there whose end leaves the same bytes in both,
 * gives that container's span and path; the shadow's span is parsed alone
 * and put in place of live's, in a copy of the containers on the path. The
 * rest is live's own objects, which equal what the shadow's bytes there
 * would parse to, since they are the same bytes.
 *
 * Exact, or undefined (the caller parses the shadow whole):
 * - `liveValue` is live's parse, so the scan of live's bytes is right;
 * - the shadow's span must decode and parse as one value: the shadow is
 *   then live with one value replaced by another (the spans start and end
 *   at a bracket, so the split keeps UTF-8 intact), valid JSON whose parse
 *   is live's with that value replaced;
 * - a key on the path given again later in its object would make
 *   JSON.parse keep the later one, never the container here: any such
 *   repeat, or one that may be (spelled with escapes), falls back, as does
 *   `__proto__` on the path;
 * - a change the root alone holds (two members of it apart, a top-level
 *   scalar) gains nothing.
 *
 * The result shares live's objects: read it, never edit it (nor live's
 * value while it is in use).
 */
export function spliceJson(liveBytes: Uint8Array, liveValue: unknown, shadowBytes: Uint8Array): unknown {
  const liveLength = liveBytes.length
  const shift = shadowBytes.length - liveLength
  // A scan costs about what a parse does, byte for byte. To find the
  // container around a change, live is scanned from the start: a change
  // in the last quarter would cost about what its parse saves (more, when
  // an element is added at the end of a list the size of the body).
  const reach = liveLength - (liveLength >> 2)
  const limit = reach < shadowBytes.length ? reach : shadowBytes.length
  let prefix = 0
  while (prefix < limit && liveBytes[prefix] === shadowBytes[prefix]) prefix++
  if (prefix >= reach) return undefined
  const scan = new SpanScan(liveBytes)
  scan.scan(prefix, -1)
  // Changes far apart (a container of most of the body around them) are
  // not worth finding either.
  const end = Math.min(liveLength, prefix + (liveLength >> 2))
  // From the innermost container open where the bodies part, outwards: the
  // first whose end leaves the same bytes in both holds the whole change.
  // The root holds any change; parsing it is a whole parse.
  for (let level = scan.depth - 1; level >= 1; level--) {
    const close = scan.scan(end, level)
    if (close < 0) return undefined
    if (!sameTail(liveBytes, close, shadowBytes, close + shift)) continue
    // Read before the key check scans on (and reuses the levels).
    const open = scan.opens[level]!
    // The shadow's span must be one value: its bracket must close at its
    // end (told without the cost of a parse that throws), not before, as
    // when an element was added before the one that changed.
    if (new SpanScan(shadowBytes, open).scan(close + shift + 1, 0) !== close + shift) return undefined
    const path = scan.pathTo(level)
    if (path === undefined || !scan.keysUniqueAfter(close, level, path)) return undefined
    // Live's bytes are UTF-8 (they decoded); the shadow's span must be too.
    const span = utf8Text(shadowBytes, open, close + shift + 1)
    if (span.includes(REPLACEMENT)) return undefined
    let replacement: unknown
    try {
      replacement = parseJson(span)
    } catch {
      return undefined
    }
    return replaced(liveValue, path, replacement)
  }
  return undefined
}

type Slot = string | number

/*
 * Buffer's methods on any Uint8Array, by offsets: a view (`subarray`)
 * makes JavaScriptCore give a body that has no ArrayBuffer yet one of its
 * own, which costs more than all of these.
 */
const compareRange = Buffer.prototype.compare as (
  this: Uint8Array,
  target: Uint8Array,
  targetStart: number,
  targetEnd: number,
  sourceStart: number,
  sourceEnd: number,
) => number
const indexOf = Buffer.prototype.indexOf as (this: Uint8Array, value: Uint8Array, byteOffset: number) => number
const toText = Buffer.prototype.toString as (this: Uint8Array, encoding: 'utf8', start: number, end: number) => string

/** UTF-8 text of `bytes[start, end)`; invalid bytes read as U+FFFD. */
function utf8Text(bytes: Uint8Array, start: number, end: number): string {
  return toText.call(bytes, 'utf8', start, end)
}

const REPLACEMENT = '\uFFFD'

/** Whether `a` from `atA` on holds the same bytes as `b` from `atB` on. */
function sameTail(a: Uint8Array, atA: number, b: Uint8Array, atB: number): boolean {
  return atB >= 0 && a.length - atA === b.length - atB && compareRange.call(a, b, atB, b.length, atA, a.length) === 0
}

/**
 * A forward scan of a JSON body that JSON.parse accepted: the containers
 * open at the current position, where each opened, whether it is an
 * array, and which element (its index) or member (where its key's quotes
 * are) of it the scan is in.
 */
class SpanScan {
  /** Where each open container's bracket is, outermost first. */
  readonly opens: number[] = []
  private readonly _isArray: boolean[] = []
  /** Arrays: the element's index. Objects: the key's opening quote. */
  private readonly _slots: number[] = []
  /** Objects: the key's closing quote. */
  private readonly _keyEnds: number[] = []
  private _depth = 0
  private _expectKey = false

  /** @param _at where to start: 0, or a container's opening bracket. */
  constructor(
    private readonly _bytes: Uint8Array,
    private _at = 0,
  ) {}

  get depth(): number {
    return this._depth
  }

  /**
   * Scans on until `end` (a string that crosses it is read whole), or
   * until the container at index `level` closes (0 for the root; -1 never
   * stops): then its bracket's index; -1 when `end` comes first.
   */
  scan(end: number, level: number): number {
    const bytes = this._bytes
    const length = bytes.length
    const opens = this.opens
    const isArray = this._isArray
    const slots = this._slots
    let at = this._at
    let depth = this._depth
    let expectKey = this._expectKey
    let closed = -1
    while (at < end) {
      const code = bytes[at]!
      if (code === QUOTE) {
        let stop = at + 1
        for (;;) {
          const inner = bytes[stop]
          if (inner === BACKSLASH) stop += 2
          else if (inner === QUOTE || stop >= length) break
          else stop++
        }
        if (expectKey) {
          slots[depth - 1] = at
          this._keyEnds[depth - 1] = stop
          expectKey = false
        }
        at = stop + 1
        continue
      }
      at++
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        opens[depth] = at - 1
        const array = code === OPEN_ARRAY
        isArray[depth] = array
        slots[depth] = 0
        depth++
        expectKey = !array
      } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
        expectKey = false
        if (--depth === level) {
          closed = at - 1
          break
        }
      } else if (code === COMMA) {
        if (isArray[depth - 1]) slots[depth - 1]!++
        else expectKey = true
      }
    }
    this._at = at
    this._depth = depth
    this._expectKey = expectKey
    return closed
  }

  /** The slots leading into the container at index `level`, or undefined for a `__proto__` key. */
  pathTo(level: number): Slot[] | undefined {
    const path: Slot[] = []
    for (let m = 0; m < level; m++) {
      if (this._isArray[m]) {
        path.push(this._slots[m]!)
        continue
      }
      const key = this._key(m)
      if (key === '__proto__') return undefined
      path.push(key)
    }
    return path
  }

  /**
   * Whether no object on the path to the container at `level` names its
   * key again after that container, which closed at `after`. A native
   * search of the bytes after it for the key as spelled answers for most
   * keys; a possible repeat (or one spelled with escapes) is settled by
   * scanning on until that object closes.
   */
  keysUniqueAfter(after: number, level: number, path: readonly Slot[]): boolean {
    const bytes = this._bytes
    // Without a backslash after it, a repeat is spelled as the key is.
    const plain = bytes.indexOf(BACKSLASH, after) < 0
    // The outermost object on the path whose key may come again.
    let outermost = -1
    for (let m = level - 1; m >= 0; m--) {
      if (this._isArray[m]) continue
      const key = bytes.slice(this._slots[m]!, this._keyEnds[m]! + 1)
      if (!plain || key.includes(BACKSLASH) || indexOf.call(bytes, key, after) >= 0) outermost = m
    }
    if (outermost < 0) return true
    // The path's objects are those that stayed open since the container closed.
    let open = this._depth
    while (this._at < this._bytes.length) {
      // One token at a time: a key is read whole.
      const keyRead = this._expectKey && this._bytes[this._at] === QUOTE
      const closed = this.scan(this._at + 1, open - 1)
      if (closed >= 0) {
        open = this._depth
        if (open <= outermost) return true
        continue
      }
      if (keyRead) {
        const at = this._depth - 1
        if (at < open && this._key(at) === path[at]) return false
      }
    }
    return true
  }

  /** The key of the member the object at `level` is in, decoded (live's bytes are valid UTF-8). */
  private _key(level: number): string {
    const text = utf8Text(this._bytes, this._slots[level]! + 1, this._keyEnds[level]!)
    return text.includes('\\') ? (JSON.parse(`"${text}"`) as string) : text
  }
}

const COMMA = 0x2c

/** `value` with the one at `path` replaced, copying only the containers on the path. */
function replaced(value: unknown, path: readonly Slot[], replacement: unknown): unknown {
  const root = shallowCopy(value)
  if (root === undefined) return undefined
  let parent = root as Record<Slot, unknown>
  const last = path.length - 1
  for (let m = 0; m < last; m++) {
    const copy = shallowCopy(parent[path[m]!])
    if (copy === undefined) return undefined
    parent[path[m]!] = copy
    parent = copy as Record<Slot, unknown>
  }
  parent[path[last]!] = replacement
  return root
}

function shallowCopy(value: unknown): object | undefined {
  if (Array.isArray(value)) return value.slice()
  if (typeof value !== 'object' || value === null) return undefined
  return { ...(value as object) }
}
