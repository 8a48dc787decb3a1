import type { PatchOp } from '../diff/patch-op.ts'
import type { Endpoint } from './endpoint.ts'
import { diffSignature } from './signature-of.ts'
import type { DiffSignature } from './signature.ts'

/** Patches with more ops than this are signed afresh: their key would cost about as much as the signature. */
const MAX_KEYED_OPS = 8
/** Nor is one whose texts are longer (long paths): the memo holds at most about capacity × this many characters of keys. */
const MAX_KEY_TEXT = 2048

/**
 * `diffSignature` for a process that signs the same kinds of difference
 * over and over (the standalone proxy signs every logged diff): the
 * signature of an endpoint and patch, kept by their exact text, so that a
 * patch seen before costs a string key and a map lookup instead of the
 * generalised paths, the sort and the SHA-256 (docs/insights.md
 * "Signatures"). Signatures are frozen through and through, so one object is safely shared.
 * At most `capacity` are kept, each by a key of about 2,048 characters at
 * most; when full, the memo starts over, which bounds its memory whatever
 * the traffic. One memo per handler: per proxy worker, per module.
 */
export class DiffSignatureMemo {
  private readonly known = new Map<string, DiffSignature>()

  constructor(private readonly capacity = 1024) {}

  /** The same value as `diffSignature(endpoint, ops)`; undefined for an empty patch. */
  of(endpoint: Endpoint, ops: readonly Pick<PatchOp, 'op' | 'path'>[]): DiffSignature | undefined {
    if (ops.length === 0 || ops.length > MAX_KEYED_OPS || textLength(endpoint, ops) > MAX_KEY_TEXT) return diffSignature(endpoint, ops)
    const key = keyOf(endpoint, ops)
    let signature = this.known.get(key)
    if (signature === undefined) {
      signature = diffSignature(endpoint, ops)!
      if (this.known.size >= this.capacity) this.known.clear()
      this.known.set(key, signature)
    }
    return signature
  }

  /** Signatures kept now. */
  get size(): number {
    return this.known.size
  }
}

/**
 * The endpoint and the ops in order, each text prefixed by its length: a
 * path or a template may hold any character, so no separator alone would
 * keep two different inputs from sharing a key.
 */
function keyOf(endpoint: Endpoint, ops: readonly Pick<PatchOp, 'op' | 'path'>[]): string {
  let key = `${endpoint.method.length}:${endpoint.method}${endpoint.template.length}:${endpoint.template}`
  for (const { op, path } of ops) key += `${op.length}:${op}${path.length}:${path}`
  return key
}

/** The characters of the endpoint and the ops, without building the key. */
function textLength(endpoint: Endpoint, ops: readonly Pick<PatchOp, 'op' | 'path'>[]): number {
  let length = endpoint.method.length + endpoint.template.length
  for (const { op, path } of ops) length += op.length + path.length
  return length
}
