// The svc_gate web-server module (docs/module.md): standalone shadowing inside
// an Elysia or Bun.serve app.

export {
  svcGate,
  type GateRouteHandler,
  type SvcGate,
  type SvcGateMountOptions,
} from './svc-gate.ts'
export type { ClientAddressSource, SvcGatePlugin } from './gate-plugin.ts'
export {
  parseModuleConfig,
  resolveModuleConfig,
  validateModuleConfig,
  type DurationOption,
  type FieldListOption,
  type SvcGateConfig,
  type SvcGateHttpClientConfig,
  type SvcGateOptions,
} from './module-config.ts'
export { printBlock } from './print-block.ts'
export { toShadowSettings, MODULE_GATE_LABEL } from './to-shadow-settings.ts'
export { mountPrefix, type MountPrefix } from './mount-prefix.ts'
export { ModuleConfigError } from './module-config-error.ts'
export { BlockSyntaxError } from './block-syntax-error.ts'
export { SVC_GATE_DIRECTIVES, HTTP_CLIENT_DIRECTIVES } from './directives.ts'
// What a host needs to give the module a logger or a registry of its choosing.
export { createLogger, type Logger, type LoggerOptions } from '../log/index.ts'
export { PROMETHEUS_CONTENT_TYPE, Registry } from '../metrics/index.ts'
