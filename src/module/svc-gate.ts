/**
 * `svcGate()`: the web-server module variant (docs/module.md). It puts the
 * proxy's shadowing core into a host server, on a path prefix:
 *
 * ```ts
 * const gate = svcGate(configObjectOrBlockText, { prefix: '/api' })
 * gate.fetch   // (req) => Promise<Response>, for Bun.serve or any fetch-style host
 * gate.plugin  // Elysia plugin: requests under the prefix go to the gate
 * gate.close() // drains background comparisons
 * ```
 *
 * Standalone only: it never calls the API, compares and logs
 * `response diff detected` itself, and counts with `gate=""`. Everything
 * it does to a request is the core's (`createShadowHandler`): this file
 * only wires configuration, prefix, logger and metrics to it.
 */
import { createLogger, type Logger } from '../log/index.ts'
import { Registry } from '../metrics/index.ts'
import { plainAddress } from '../proxy/policy/forward-headers.ts'
import { problemResponse } from '../errors/problem.ts'
import { withoutPassword } from '../net/base-url.ts'
import { pathOf } from '../net/request-target.ts'
import { createShadowHandler } from '../proxy/pipeline/shadow-handler.ts'
import { gatePlugin, type ClientAddressSource, type SvcGatePlugin } from './gate-plugin.ts'
import { resolveModuleConfig, type SvcGateConfig, type SvcGateOptions } from './module-config.ts'
import { moduleMetrics } from './module-metrics.ts'
import { mountPrefix } from './mount-prefix.ts'
import { toShadowSettings } from './to-shadow-settings.ts'

/** How the module is mounted in its host; the configuration proper is the first argument. */
export interface SvcGateMountOptions {
  /**
   * The path prefix the module takes: `/api` takes `/api` and `/api/...`,
   * the host keeps every other path. Empty or `/`: every path.
   * @default ''
   */
  readonly prefix?: string
  /**
   * Forward `/api/items?x=1` as `/items?x=1`. By default live and shadow
   * get the path the client used, prefix included.
   * @default false
   */
  readonly stripPrefix?: boolean
  /** Where `response diff detected` and the module's warnings go. @default info level, text format, stdout */
  readonly logger?: Logger
  /**
   * Registry for the module's metrics. It must not already hold
   * `http_server_request_duration_seconds` or the other names the module
   * registers (docs/module.md "Metrics").
   * @default a registry of the module's own
   */
  readonly registry?: Registry
}

/** A Bun.serve route handler: `Bun.serve({ routes: { ...gate.routes } })`. */
export type GateRouteHandler = (request: Request, server: ClientAddressSource) => Promise<Response>

export interface SvcGate {
  /** The validated configuration, every default applied (`printBlock(gate.config)` prints it). */
  readonly config: SvcGateConfig
  /** The normalised prefix: `''` or `/segment...` without a trailing slash. */
  readonly prefix: string
  /**
   * Forwards a request under the prefix: live's response (or a 502/504
   * Problem), never delayed by the shadow; never rejects. A request outside
   * the prefix gets a 404 Problem and is not forwarded. Pass Bun's server
   * as the second argument so upstreams get the client in X-Forwarded-For.
   * Bound: `Bun.serve({ fetch: gate.fetch })` works.
   */
  fetch(request: Request, server?: ClientAddressSource): Promise<Response>
  /** The Elysia plugin: `app.use(gate.plugin)`. Made on first use. */
  readonly plugin: SvcGatePlugin
  /** For `Bun.serve({ routes })`: the prefix and everything below it, all methods. */
  readonly routes: Readonly<Record<string, GateRouteHandler>>
  /** Whether a request is under the prefix, for a host that routes in its own `fetch`. */
  matches(request: Request): boolean
  /** Background comparisons in flight. */
  readonly inFlight: number
  /** The registry the module's metrics are on. */
  readonly registry: Registry
  /** The module's metrics in Prometheus text format, for a host's metrics route. */
  metricsText(): string
  /**
   * Waits for the background comparisons in flight, at most the shadow
   * timeout, then aborts the rest (counted as `report_failed`); resolves
   * when done, never rejects. The gate still forwards afterwards; stop the
   * host server first.
   */
  close(): Promise<void>
}

/** One seed per gate for Elysia's plugin deduplication. */
let gates = 0

/**
 * Makes a gate from an `svc_gate { ... }` block or an options object.
 * Throws `ModuleConfigError` (line and column for block text) or
 * `BlockSyntaxError` on a bad configuration, before anything starts.
 */
export function svcGate(
  config: string | SvcGateOptions,
  options: SvcGateMountOptions = {},
): SvcGate {
  const resolved = resolveModuleConfig(config)
  const mount = mountPrefix(options.prefix, options.stripPrefix)
  const logger = options.logger ?? createLogger({ level: 'info', format: 'text' })
  const registry = options.registry ?? new Registry()
  const settings = toShadowSettings(resolved)
  const handler = createShadowHandler(settings, { logger, metrics: moduleMetrics(registry) })
  const seed = ++gates

  /** The core, for a request the host has routed here. */
  const forward = (
    request: Request,
    server: ClientAddressSource | undefined,
  ): Promise<Response> => {
    const address = server?.requestIP(request)?.address
    return handler.fetch(request, {
      clientAddress: address === undefined ? undefined : plainAddress(address),
      pathAndQuery: mount.forwardedTarget(request.url),
    })
  }
  const matches = (request: Request) => mount.matches(pathOf(request.url))
  const fetch = (request: Request, server?: ClientAddressSource): Promise<Response> =>
    matches(request)
      ? forward(request, server)
      : Promise.resolve(notUnderPrefix(request, mount.prefix))

  let closing: Promise<void> | undefined
  const close = (): Promise<void> =>
    (closing ??= handler.close().then((drained) => {
      closing = undefined
      logger.info('background comparisons drained', {
        completed: drained.completed,
        aborted: drained.aborted,
      })
    }))

  let plugin: SvcGatePlugin | undefined
  // Bun.serve matches `routes` on the path as sent, but the Request it
  // hands over has its dot segments resolved: /api/%2e%2e/admin arrives as
  // /admin. The prefix is checked again on what would be forwarded.
  const route: GateRouteHandler = (request, server) => fetch(request, server)
  logger.info('svc_gate ready', {
    prefix: mount.prefix || '/',
    strip_prefix: mount.stripPrefix,
    live: withoutPassword(settings.liveUrl),
    shadow: withoutPassword(settings.shadowUrl),
    sampling_rate: settings.samplingRate,
    noise_sample_rate: settings.noiseSampleRate,
  })
  return {
    config: resolved,
    prefix: mount.prefix,
    fetch,
    get plugin() {
      return (plugin ??= gatePlugin({ mount, seed, forward, close }))
    },
    routes: Object.freeze({ [mount.prefix || '/']: route, [`${mount.prefix}/*`]: route }),
    matches,
    get inFlight() {
      return handler.inFlight
    },
    registry,
    metricsText: () => registry.render(),
    close,
  }
}

/** A Problem, `instance` on a 4xx (docs/reference/api.md "Problems"). */
function notUnderPrefix(request: Request, prefix: string): Response {
  return problemResponse({
    type: '/errors/not-found',
    title: 'Not found',
    status: 404,
    detail: `not under the svc_gate prefix ${prefix}`,
    instance: pathOf(request.url),
  })
}
