/**
 * The body bound, SVC_APP_MAX_BODY_SIZE (the module's `max_body_size`):
 * bodies above it are forwarded but not shadowed or compared (docs/proxy.md
 * "Forwarding"). 0 means unlimited.
 */

/** `true` when `length` bytes exceed `maxBytes` (0: never). */
export function exceeds(length: number, maxBytes: number): boolean {
  return maxBytes !== 0 && length > maxBytes
}
