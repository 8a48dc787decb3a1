/**
 * The directives of the `svc_gate` block (docs/reference/configuration.md
 * "Module: the `svc_gate` block and options"), each set defined once for the
 * parser, the printer and the object form, whose option names are the camelCase
 * of these.
 */

/**
 * The directives of the block: the first set in its original order, then those
 * added since (`trusted_proxies`, `endpoints`, `max_bytes_in_flight`, the noise
 * check's two); the printer keeps this order.
 */
export const SVC_GATE_DIRECTIVES = [
  'live',
  'shadow',
  'sampling_rate',
  'live_timeout',
  'shadow_timeout',
  'max_body_size',
  'shadow_rules',
  'max_concurrent_callbacks',
  'http_client',
  'diff_ignored_fields',
  'diff_included_fields',
  'diff_float_tolerance',
  'diff_sort_arrays',
  'redacted_fields',
  'trusted_proxies',
  'endpoints',
  'max_bytes_in_flight',
  'noise_sample_rate',
  'noise_max_per_second',
] as const
export type SvcGateDirective = (typeof SVC_GATE_DIRECTIVES)[number]

/** The directives of the nested `http_client { ... }` block. */
export const HTTP_CLIENT_DIRECTIVES = [
  'max_idle_conns',
  'max_idle_conns_per_host',
  'max_conns_per_host',
  'idle_conn_timeout',
] as const
export type HttpClientDirective = (typeof HTTP_CLIENT_DIRECTIVES)[number]

/** Directives that hold a block instead of values, with the directives allowed inside. */
export const BLOCK_DIRECTIVES: ReadonlyMap<string, readonly string[]> = new Map([
  ['http_client', HTTP_CLIENT_DIRECTIVES],
])

/**
 * Lists (field paths, addresses, templates): several values per directive, each
 * possibly comma-separated, and the directive may be repeated to extend the
 * list (long lists need not fit on one line). Every other directive may
 * appear once.
 */
export const LIST_DIRECTIVES: ReadonlySet<string> = new Set([
  'diff_ignored_fields',
  'diff_included_fields',
  'redacted_fields',
  'trusted_proxies',
  'endpoints',
])

/** The object form's name for a directive: `max_idle_conns` -> `maxIdleConns`. */
export function optionName(directive: string): string {
  return directive.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())
}
