/**
 * One operation of the RFC 6902 JSON Patch that turns the live document into
 * the shadow document (docs/diff.md "Patch format").
 *
 * - `add`: the location exists only in shadow; `value` is the shadow value.
 * - `remove`: the location exists only in live; no `value`.
 * - `replace`: the values differ; `value` is the shadow value.
 */
export interface PatchOp {
  op: 'add' | 'remove' | 'replace'
  /** RFC 6901 JSON Pointer from the document root, such as `/body/items/0/price`. */
  path: string
  value?: unknown
}

/** The three operations, defined once for runtime checks and the type. */
export const PATCH_OP_KINDS = [
  'add',
  'remove',
  'replace',
] as const satisfies readonly PatchOp['op'][]
