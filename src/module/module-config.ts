/**
 * The configuration of the web-server module (docs/module.md "The `svc_gate`
 * block"; docs/reference/configuration.md "Module: the `svc_gate` block and
 * options"). It comes either as the text of an `svc_gate { ... }` block or as
 * an options object; both are reduced to a `RawSection` and validated by the
 * same `buildConfig`, so they accept the same values and fail with the same
 * messages.
 */
import { DEFAULT_MAX_BYTES_IN_FLIGHT } from '../proxy/policy/byte-budget.ts'
import { DEFAULT_NOISE_MAX_PER_SECOND, DEFAULT_NOISE_SAMPLE_RATE, MAX_NOISE_PER_SECOND } from '../proxy/policy/noise-sampler.ts'
import { withoutPassword } from '../net/base-url.ts'
import { parseBlock } from './block-parser.ts'
import {
  readAddressList,
  readCount,
  readDuration,
  readEndpointList,
  readFieldList,
  readRate,
  readRules,
  readSwitch,
  readTolerance,
  readUrl,
  type ValueReader,
} from './directive-values.ts'
import {
  SVC_GATE_DIRECTIVES,
  type HttpClientDirective,
  type SvcGateDirective,
} from './directives.ts'
import { ModuleConfigError } from './module-config-error.ts'
import { sectionFromDirectives, sectionFromObject, type RawSection } from './raw-section.ts'

/** Outbound connection pool; same meanings as the proxy's SVC_APP_HTTP_CLIENT_* variables. */
export interface SvcGateHttpClientConfig {
  /** Idle pool size across hosts; 0 means unlimited. */
  readonly maxIdleConns: number
  /** Idle connections per host; 0 means the runtime default of 2. */
  readonly maxIdleConnsPerHost: number
  /** Total connections per host; 0 means unlimited. */
  readonly maxConnsPerHost: number
  /** Idle connection lifetime in ms; 0 means no timeout. */
  readonly idleConnTimeoutMs: number
}

/** A validated, deeply frozen `svc_gate` configuration, every default applied. */
export interface SvcGateConfig {
  readonly live: string
  readonly shadow: string
  readonly samplingRate: number
  readonly liveTimeoutMs: number
  readonly shadowTimeoutMs: number
  /**
   * Bytes; 0 means unlimited (the module's default, docs/module.md
   * "Decisions").
   */
  readonly maxBodySize: number
  /** The rule list as written; `''` means the base rules only. */
  readonly shadowRules: string
  /** 0 means unbounded. */
  readonly maxConcurrentCallbacks: number
  readonly httpClient: SvcGateHttpClientConfig
  readonly diffIgnoredFields: readonly string[]
  readonly diffIncludedFields: readonly string[]
  /** 0 means exact. */
  readonly diffFloatTolerance: number
  readonly diffSortArrays: boolean
  readonly redactedFields: readonly string[]
  /** IPs and CIDR networks as written (`trusted_proxies`); empty: no peer is trusted. */
  readonly trustedProxies: readonly string[]
  /** Explicit endpoint templates as written (`endpoints`); empty: automatic templates only. */
  readonly endpoints: readonly string[]
  /** Bytes the background comparisons may hold together, at least 1 (`max_bytes_in_flight`). */
  readonly maxBytesInFlight: number
  /** Fraction of the shadowed requests that get a noise check, 0 to 1; 0 is off (`noise_sample_rate`). */
  readonly noiseSampleRate: number
  /** Noise-check repeats in any one second, 1 to 10,000 (`noise_max_per_second`). */
  readonly noiseMaxPerSecond: number
}

/** A duration as Go-style text (`"5s"`) or a number of milliseconds. */
export type DurationOption = string | number
/** A field list as an array, or as comma-separated text. */
export type FieldListOption = string | readonly string[]

/**
 * The object form. Keys are the directives' names in camelCase; values are
 * what the directive takes (numbers and booleans may also be given as the
 * block's text).
 */
export interface SvcGateOptions {
  live: string
  shadow: string
  /** @default 1 */
  samplingRate?: number | string
  /** @default "5s" */
  liveTimeout?: DurationOption
  /** @default "10s" */
  shadowTimeout?: DurationOption
  /** Bytes; 0 means unlimited. @default 0 */
  maxBodySize?: number | string
  /**
   * docs/proxy.md "Which requests are shadowed"; base rules are always
   * appended. @default ""
   */
  shadowRules?: string
  /** 0 means unbounded. @default 200 */
  maxConcurrentCallbacks?: number | string
  httpClient?: {
    /** @default 100 */
    maxIdleConns?: number | string
    /** @default 10 */
    maxIdleConnsPerHost?: number | string
    /** @default 100 */
    maxConnsPerHost?: number | string
    /** @default "90s" */
    idleConnTimeout?: DurationOption
  }
  /** @default [] */
  diffIgnoredFields?: FieldListOption
  /** @default [] */
  diffIncludedFields?: FieldListOption
  /** @default 0 */
  diffFloatTolerance?: number | string
  /** @default false */
  diffSortArrays?: boolean | string
  /** Added to the always-redacted defaults, never replacing them. @default [] */
  redactedFields?: FieldListOption
  /**
   * Peers (IPs, CIDR networks) whose X-Forwarded-Host and -Proto are passed
   * on, as the proxy's SVC_APP_TRUSTED_PROXIES; any other peer's are
   * replaced by what the module saw. @default []
   */
  trustedProxies?: string | readonly string[]
  /**
   * Explicit endpoint templates such as `/v2/products/{sku}/price`, for
   * the `endpoint` and `signature` of `response diff detected`, as the
   * proxy's SVC_APP_ENDPOINTS (docs/insights.md). @default []
   */
  endpoints?: string | readonly string[]
  /**
   * Bytes the background comparisons may hold together (request, live and
   * shadow bodies, at least 1), as the proxy's SVC_APP_MAX_BYTES_IN_FLIGHT;
   * also the shadow's body bound while `maxBodySize` is 0 (docs/module.md).
   * @default 268435456 (256 MiB)
   */
  maxBytesInFlight?: number | string
  /**
   * Fraction of the shadowed requests that get a noise check (live asked again,
   * docs/proxy.md "Noise check"), as the proxy's SVC_APP_NOISE_SAMPLE_RATE; 0
   * is off. @default 0
   */
  noiseSampleRate?: number | string
  /** Noise-check repeats in any one second, 1 to 10,000, as SVC_APP_NOISE_MAX_PER_SECOND. @default 5 */
  noiseMaxPerSecond?: number | string
}

/** Parses and validates the text of an `svc_gate { ... }` block. */
export function parseModuleConfig(text: string): SvcGateConfig {
  const directives = parseBlock(text)
  const [gate, extra] = directives
  const expected = 'an "svc_gate { ... }" block'
  if (!gate)
    throw new ModuleConfigError('svc_gate', expected, 'end of input', { line: 1, column: 1 })
  if (gate.name !== 'svc_gate') {
    throw new ModuleConfigError(gate.name, expected, JSON.stringify(gate.name), gate)
  }
  if (gate.args.length > 0) {
    const found = JSON.stringify(gate.args[0])
    throw new ModuleConfigError('svc_gate', '"{" after svc_gate', found, gate.argPositions[0])
  }
  if (!gate.block)
    throw new ModuleConfigError('svc_gate', 'a block "svc_gate { ... }"', 'none', gate)
  if (extra) {
    const found = JSON.stringify(extra.name)
    throw new ModuleConfigError(extra.name, 'nothing after the svc_gate block', found, extra)
  }
  return buildConfig(sectionFromDirectives(gate, SVC_GATE_DIRECTIVES))
}

/** Validates the object form with the same rules as the block. */
export function validateModuleConfig(options: SvcGateOptions): SvcGateConfig {
  return buildConfig(sectionFromObject('options', options, SVC_GATE_DIRECTIVES))
}

/** Accepts either form: block text or an options object. */
export function resolveModuleConfig(input: string | SvcGateOptions): SvcGateConfig {
  return typeof input === 'string' ? parseModuleConfig(input) : validateModuleConfig(input)
}

/** How each directive is read; `satisfies` keeps every reader's own value type. */
const READERS = {
  live: readUrl,
  shadow: readUrl,
  sampling_rate: readRate,
  live_timeout: readDuration('positive'),
  shadow_timeout: readDuration('positive'),
  max_body_size: readCount('bytes; 0 means unlimited'),
  shadow_rules: readRules,
  max_concurrent_callbacks: readCount('0 means unbounded'),
  http_client: (field) => buildHttpClient(field.section),
  diff_ignored_fields: readFieldList,
  diff_included_fields: readFieldList,
  diff_float_tolerance: readTolerance,
  diff_sort_arrays: readSwitch,
  redacted_fields: readFieldList,
  trusted_proxies: readAddressList,
  endpoints: readEndpointList,
  max_bytes_in_flight: readCount('bytes, at least 1', 1),
  noise_sample_rate: readRate,
  noise_max_per_second: readCount('repeats to live a second', 1, MAX_NOISE_PER_SECOND),
} satisfies Record<SvcGateDirective, ValueReader<unknown>>

const HTTP_CLIENT_READERS = {
  max_idle_conns: readCount('0 means unlimited'),
  max_idle_conns_per_host: readCount('0 means the runtime default of 2'),
  max_conns_per_host: readCount('0 means unlimited'),
  idle_conn_timeout: readDuration('zero'),
} satisfies Record<HttpClientDirective, ValueReader<unknown>>

type ReadValues<R> = { [K in keyof R]?: R[K] extends ValueReader<infer T> ? T : never }

/**
 * Reads the fields present, in the order they were written, so that the
 * first error reported is the first one in the text.
 */
function readSection<R extends Record<string, ValueReader<unknown>>>(
  section: RawSection | undefined,
  readers: R,
): ReadValues<R> {
  const values: Record<string, unknown> = {}
  for (const [directive, field] of section?.fields ?? []) {
    values[directive] = (readers[directive] as ValueReader<unknown>)(field)
  }
  return values as ReadValues<R>
}

function buildConfig(section: RawSection): SvcGateConfig {
  const values = readSection(section, READERS)
  const missing = (directive: SvcGateDirective) => {
    const expected = `a "${section.nameOf(directive)}" ${section.noun}`
    return new ModuleConfigError(section.name, expected, 'none', section.at)
  }
  if (values.live === undefined) throw missing('live')
  if (values.shadow === undefined) throw missing('shadow')
  // As SVC_APP_SHADOW_URL: one service twice would compare it with itself and double its load.
  if (sameService(values.shadow, values.live)) {
    const shadow = section.fields.get('shadow')
    const found = JSON.stringify(withoutPassword(values.shadow))
    throw new ModuleConfigError(
      shadow?.name ?? 'shadow',
      'a URL different from live',
      found,
      shadow?.valueAt[0] ?? shadow?.at,
    )
  }
  // Defaults: docs/reference/configuration.md "Module: the `svc_gate` block and
  // options".
  return deepFreeze({
    live: values.live,
    shadow: values.shadow,
    samplingRate: values.sampling_rate ?? 1,
    liveTimeoutMs: values.live_timeout ?? 5_000,
    shadowTimeoutMs: values.shadow_timeout ?? 10_000,
    maxBodySize: values.max_body_size ?? 0,
    shadowRules: values.shadow_rules ?? '',
    maxConcurrentCallbacks: values.max_concurrent_callbacks ?? 200,
    httpClient: values.http_client ?? buildHttpClient(undefined),
    diffIgnoredFields: values.diff_ignored_fields ?? [],
    diffIncludedFields: values.diff_included_fields ?? [],
    diffFloatTolerance: values.diff_float_tolerance ?? 0,
    diffSortArrays: values.diff_sort_arrays ?? false,
    redactedFields: values.redacted_fields ?? [],
    trustedProxies: values.trusted_proxies ?? [],
    endpoints: values.endpoints ?? [],
    maxBytesInFlight: values.max_bytes_in_flight ?? DEFAULT_MAX_BYTES_IN_FLIGHT,
    noiseSampleRate: values.noise_sample_rate ?? DEFAULT_NOISE_SAMPLE_RATE,
    noiseMaxPerSecond: values.noise_max_per_second ?? DEFAULT_NOISE_MAX_PER_SECOND,
  })
}

function buildHttpClient(section: RawSection | undefined): SvcGateHttpClientConfig {
  const values = readSection(section, HTTP_CLIENT_READERS)
  return {
    maxIdleConns: values.max_idle_conns ?? 100,
    maxIdleConnsPerHost: values.max_idle_conns_per_host ?? 10,
    maxConnsPerHost: values.max_conns_per_host ?? 100,
    idleConnTimeoutMs: values.idle_conn_timeout ?? 90_000,
  }
}

/** Compared as the proxy compares SVC_APP_LIVE_URL and _SHADOW_URL: parsed (host case, default port), without a trailing slash. */
function sameService(a: string, b: string): boolean {
  const normal = (url: string) => new URL(url).href.replace(/\/+$/, '')
  return normal(a) === normal(b)
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
