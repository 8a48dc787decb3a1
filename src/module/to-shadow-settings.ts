/**
 * The one place where an `svc_gate` configuration becomes the settings of the
 * proxy's shadowing core (`createShadowHandler`): one implementation of
 * forwarding, rules, sampling, diff and redaction (docs/module.md "Decisions",
 * one mapping, one core), so the module only translates names and leaves every
 * behaviour to the core. Pure: no I/O, nothing read from the environment.
 */
import type { DiffConfig } from '../diff/diff-config.ts'
import { EndpointTemplates } from '../insights/index.ts'
import { CidrSet, parseCidr, type Cidr } from '../net/cidr.ts'
import { compileShadowRules } from '../proxy/policy/shadow-rules.ts'
import type { ShadowSettings } from '../proxy/policy/shadow-settings.ts'
import type { SvcGateConfig } from './module-config.ts'

/**
 * The module works in standalone mode only (docs/module.md "Decisions"), so its
 * metrics carry `gate=""`, the label of a standalone proxy or module
 * (docs/reference/metrics.md "Label values").
 */
export const MODULE_GATE_LABEL = ''

/**
 * Maps a validated configuration onto the core's settings. The shadow rules are
 * compiled here, base rules appended (docs/proxy.md "Which requests are
 * shadowed"); `parseModuleConfig` has already compiled them once, so this does
 * not throw for a config it returned.
 */
export function toShadowSettings(config: SvcGateConfig): ShadowSettings {
  const diff: DiffConfig = {
    ignored_fields: [...config.diffIgnoredFields],
    included_fields: [...config.diffIncludedFields],
    float_tolerance: config.diffFloatTolerance,
    sort_arrays: config.diffSortArrays,
  }
  return Object.freeze({
    liveUrl: withoutTrailingSlash(config.live),
    shadowUrl: withoutTrailingSlash(config.shadow),
    gate: MODULE_GATE_LABEL,
    liveTimeoutMs: config.liveTimeoutMs,
    shadowTimeoutMs: config.shadowTimeoutMs,
    maxBodyBytes: config.maxBodySize,
    samplingRate: config.samplingRate,
    noiseSampleRate: config.noiseSampleRate,
    noiseMaxPerSecond: config.noiseMaxPerSecond,
    shadowRules: compileShadowRules(config.shadowRules),
    maxConcurrentCallbacks: config.maxConcurrentCallbacks,
    maxBytesInFlight: config.maxBytesInFlight,
    httpClient: config.httpClient,
    redactedFields: config.redactedFields,
    // Each entry was checked by `readAddressList`.
    trustedProxies: new CidrSet(config.trustedProxies.map((entry) => parseCidr(entry) as Cidr)),
    diff: Object.freeze(diff),
    // Checked by `readEndpointList`.
    endpoints: EndpointTemplates.parse(config.endpoints),
  })
}

/** The core joins base URL and path as text: `http://live/` + `/a` must not give `//a`. */
function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
