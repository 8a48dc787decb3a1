import type { Position } from './block-syntax-error.ts'

/**
 * An `svc_gate` configuration that parses but breaks a rule: an unknown or
 * duplicate directive, a missing `live`, a bad duration, a sampling rate
 * outside 0..1... Block text gives a line and a column; an object gives
 * neither, and `directive` names the option path instead.
 */
export class ModuleConfigError extends Error {
  override readonly name = 'ModuleConfigError'
  readonly code = 'invalid-module-config'
  readonly line: number | undefined
  readonly column: number | undefined
  constructor(
    /** The directive (`http_client.max_idle_conns`) or option (`httpClient.maxIdleConns`) at fault. */
    readonly directive: string,
    /** What would have been valid, e.g. `a number from 0 to 1`. */
    readonly expected: string,
    /** What was there instead, e.g. `"1.5"`. */
    readonly found: string,
    at?: Position,
    /** Replaces the generated "expected ..., found ..." wording when a nested error says it better. */
    detail?: string,
  ) {
    const where = at ? `line ${at.line}, column ${at.column}: ` : ''
    super(`${where}${directive}: ${detail ?? `expected ${expected}, found ${found}`}`)
    this.line = at?.line
    this.column = at?.column
  }
}
