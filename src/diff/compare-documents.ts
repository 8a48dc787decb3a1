import { sortArraysDeep } from './canonical.ts'
import { CompiledDiffConfig } from './compiled-diff-config.ts'
import { deepEqual } from './deep-equal.ts'
import type { DiffConfig } from './diff-config.ts'
import { DiffWalk } from './diff-walk.ts'
import type { PatchOp } from './patch-op.ts'

/**
 * The RFC 6902 patch from the live document to the shadow document under a
 * DiffConfig (docs/diff.md). An empty patch means a match.
 *
 * Documents are JSON values (as JSON.parse returns them), normally the
 * response document `{status, headers, body}` so that field paths such as
 * `body.items.#.id` line up. Applied in order to the live document, the
 * patch yields the shadow document when nothing is ignored, excluded or
 * tolerated; with sort_arrays it does so on the canonically sorted
 * documents. Values in the patch are shadow values, shared with the input
 * where nothing was filtered out: treat them as read-only.
 */
export function compareDocuments(
  liveDoc: unknown,
  shadowDoc: unknown,
  diff: DiffConfig | CompiledDiffConfig,
): PatchOp[] {
  // Equality fast path before any diff work: identical documents cost one walk.
  if (deepEqual(liveDoc, shadowDoc)) return []
  const compiled = diff instanceof CompiledDiffConfig ? diff : new CompiledDiffConfig(diff)
  let live = liveDoc
  let shadow = shadowDoc
  if (compiled.sortArrays) {
    live = sortArraysDeep(live, compiled.filter)
    shadow = sortArraysDeep(shadow, compiled.filter)
  }
  const walk = new DiffWalk(compiled)
  walk.compare(live, shadow, 0, compiled.filter?.root)
  return walk.ops
}
