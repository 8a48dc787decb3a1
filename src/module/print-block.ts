/**
 * Renders a configuration as `svc_gate { ... }` text that `parseModuleConfig`
 * reads back to an equal configuration: for logs at startup, for `examples/`,
 * and as the round-trip property tested in
 * `test/unit/module/print-block.test.ts`. Every directive is printed, in the
 * order of SVC_GATE_DIRECTIVES, except empty lists and empty shadow rules,
 * whose absence means the same.
 */
import { formatDuration } from '../config/duration.ts'
import type { SvcGateConfig } from './module-config.ts'

const INDENT = '    '
/** A value that the lexer reads back unchanged without quotes (see `block-lexer.ts`). */
const BARE = /^[^\s{};"'#][^\s{};"']*$/

/** Renders `config` as block text, ending with a newline. */
export function printBlock(config: SvcGateConfig): string {
  const { httpClient } = config
  const lines = [
    'svc_gate {',
    line('live', config.live),
    line('shadow', config.shadow),
    line('sampling_rate', String(config.samplingRate)),
    line('live_timeout', duration(config.liveTimeoutMs)),
    line('shadow_timeout', duration(config.shadowTimeoutMs)),
    line('max_body_size', String(config.maxBodySize)),
    config.shadowRules === '' ? undefined : line('shadow_rules', config.shadowRules),
    line('max_concurrent_callbacks', String(config.maxConcurrentCallbacks)),
    `${INDENT}http_client {`,
    line('max_idle_conns', String(httpClient.maxIdleConns), 2),
    line('max_idle_conns_per_host', String(httpClient.maxIdleConnsPerHost), 2),
    line('max_conns_per_host', String(httpClient.maxConnsPerHost), 2),
    line('idle_conn_timeout', duration(httpClient.idleConnTimeoutMs), 2),
    `${INDENT}}`,
    list('diff_ignored_fields', config.diffIgnoredFields),
    list('diff_included_fields', config.diffIncludedFields),
    line('diff_float_tolerance', String(config.diffFloatTolerance)),
    line('diff_sort_arrays', config.diffSortArrays ? 'on' : 'off'),
    list('redacted_fields', config.redactedFields),
    list('trusted_proxies', config.trustedProxies),
    list('endpoints', config.endpoints),
    line('max_bytes_in_flight', String(config.maxBytesInFlight)),
    line('noise_sample_rate', String(config.noiseSampleRate)),
    line('noise_max_per_second', String(config.noiseMaxPerSecond)),
    '}',
  ]
  return `${lines.filter((text) => text !== undefined).join('\n')}\n`
}

function line(name: string, value: string, depth = 1): string {
  return `${INDENT.repeat(depth)}${name} ${quote(value)}`
}

function list(name: string, values: readonly string[]): string | undefined {
  return values.length === 0 ? undefined : `${INDENT}${name} ${values.map(quote).join(' ')}`
}

/** Quotes a value unless it is a bare word; `\` and `"` are escaped, line breaks and tabs spelt out. */
export function quote(value: string): string {
  if (BARE.test(value)) return value
  const escaped = value.replace(/[\\"\n\r\t]/g, (ch) => ESCAPED[ch] as string)
  return `"${escaped}"`
}

const ESCAPED: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
}

/**
 * Whole seconds print as Go durations (`1m30s`); anything finer as
 * milliseconds (`1500ms`, `0.25ms`), because `parseDuration` reads a
 * fractional second such as `1.005s` back as 1004.9999999999999 ms.
 */
function duration(ms: number): string {
  return Number.isInteger(ms / 1000) ? formatDuration(ms) : `${ms}ms`
}
