/**
 * Where the two forms of `svc_gate` configuration meet. Block text (through
 * its parsed directives) and an options object are both turned into the
 * same `RawSection`: values not yet validated, keyed by directive name,
 * each with the name the user wrote and, for text, its position. One
 * validation (`module-config.ts`) then reads either.
 */
import type { Directive } from './block-parser.ts'
import type { Position } from './block-syntax-error.ts'
import { BLOCK_DIRECTIVES, LIST_DIRECTIVES, optionName } from './directives.ts'
import { ModuleConfigError } from './module-config-error.ts'

export interface RawField {
  /** As the user wrote it, qualified: `http_client.max_idle_conns` or `httpClient.maxIdleConns`. */
  readonly name: string
  readonly values: readonly unknown[]
  /** Where the directive starts (text only). */
  readonly at: Position | undefined
  /** Where each value starts (text only). */
  readonly valueAt: readonly (Position | undefined)[]
  /** The contents of a block directive such as `http_client`. */
  readonly section: RawSection | undefined
}

export interface RawSection {
  /** `svc_gate`, `http_client`; or `options`, `httpClient` for the object form. */
  readonly name: string
  /** How this form calls its entries, for messages: `directive` or `option`. */
  readonly noun: 'directive' | 'option'
  readonly at: Position | undefined
  readonly fields: ReadonlyMap<string, RawField>
  /** The name the user would write for one of this section's directives. */
  nameOf(directive: string): string
}

/** Reads the block of `owner` (e.g. the `svc_gate` directive), allowing the `known` directives. */
export function sectionFromDirectives(
  owner: Directive,
  known: readonly string[],
  prefix = '',
): RawSection {
  const fields = new Map<string, RawField>()
  const nameOf = (directive: string) => prefix + directive
  for (const directive of owner.block ?? []) {
    const { name } = directive
    const qualified = nameOf(name)
    if (!known.includes(name)) {
      throw new ModuleConfigError(
        owner.name,
        `a directive of ${owner.name} (${known.join(', ')})`,
        `unknown directive ${JSON.stringify(name)}`,
        directive,
      )
    }
    const nested = BLOCK_DIRECTIVES.get(name)
    if (nested && directive.args.length > 0) {
      const found = JSON.stringify(directive.args[0])
      throw new ModuleConfigError(qualified, `"{" after ${name}`, found, directive.argPositions[0])
    }
    if (nested && !directive.block) {
      throw new ModuleConfigError(qualified, `a block "${name} { ... }"`, 'none', directive)
    }
    if (!nested && directive.block) {
      // `endpoints /v2/{sku}` reads as a value and a block: say how to write it.
      const hint = directive.args.length > 0 ? ' (quote a value that holds "{", as "/v2/{sku}")' : ''
      throw new ModuleConfigError(qualified, `values, not a block${hint}`, 'a block', directive)
    }
    if (!nested && directive.args.length === 0) {
      throw new ModuleConfigError(qualified, 'a value', 'none', directive)
    }
    const first = fields.get(name)
    if (first && !LIST_DIRECTIVES.has(name)) {
      const where = `line ${first.at?.line}, column ${first.at?.column}`
      throw new ModuleConfigError(
        qualified,
        `one "${name}" directive (the first is at ${where})`,
        'a duplicate',
        directive,
      )
    }
    fields.set(name, {
      name: qualified,
      values: [...(first?.values ?? []), ...directive.args],
      at: first?.at ?? directive,
      valueAt: [...(first?.valueAt ?? []), ...directive.argPositions],
      section: nested ? sectionFromDirectives(directive, nested, `${qualified}.`) : undefined,
    })
  }
  return { name: owner.name, noun: 'directive', at: owner, fields, nameOf }
}

/** Reads an options object whose keys are the camelCase names of the `known` directives. */
export function sectionFromObject(
  name: string,
  value: unknown,
  known: readonly string[],
  prefix = '',
): RawSection {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ModuleConfigError(name, 'an object', describeValue(value))
  }
  const nameOf = (directive: string) => prefix + optionName(directive)
  const fields = new Map<string, RawField>()
  for (const [key, entry] of Object.entries(value)) {
    const directive = known.find((candidate) => optionName(candidate) === key)
    if (directive === undefined) {
      throw new ModuleConfigError(
        name,
        `an option of ${name} (${known.map(optionName).join(', ')})`,
        `unknown option ${JSON.stringify(key)}`,
      )
    }
    // An explicit `undefined` is the same as leaving the option out.
    if (entry === undefined) continue
    const nested = BLOCK_DIRECTIVES.get(directive)
    const values = LIST_DIRECTIVES.has(directive) && Array.isArray(entry) ? entry : [entry]
    fields.set(directive, {
      name: nameOf(directive),
      values,
      at: undefined,
      valueAt: [],
      section: nested
        ? sectionFromObject(nameOf(directive), entry, nested, `${nameOf(directive)}.`)
        : undefined,
    })
  }
  return { name, noun: 'option', at: undefined, fields, nameOf }
}

/** A value as an error message shows it: JSON where possible. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
