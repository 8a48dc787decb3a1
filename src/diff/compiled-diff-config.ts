import type { DiffConfig } from './diff-config.ts'
import { parseFieldPath, type FieldPath } from './field-path.ts'
import { PathFilter } from './path-filter.ts'
import type { ElementHashOptions } from './element-hash.ts'

/**
 * A DiffConfig with its field paths parsed and compiled, done once per
 * configuration (the proxy compiles at startup, the API per gate) instead of
 * once per comparison.
 */
export class CompiledDiffConfig {
  readonly filter: PathFilter | undefined
  readonly tolerance: number
  readonly sortArrays: boolean
  readonly elementHash: ElementHashOptions

  /**
   * @param config the gate's DiffConfig
   * @param alsoIgnored paths ignored on top of `config.ignored_fields`: the
   *   redacted fields, which are never compared (docs/diff.md)
   * @throws FieldPathError when a path does not follow the notation
   */
  constructor(
    readonly config: DiffConfig,
    alsoIgnored: readonly string[] = [],
  ) {
    const included = config.included_fields.map(parseFieldPath)
    const ignored: FieldPath[] = [...config.ignored_fields, ...alsoIgnored].map(parseFieldPath)
    this.filter = PathFilter.compile(included, ignored)
    const tolerance = config.float_tolerance
    // A negative or NaN tolerance means exact comparison, as 0 does.
    this.tolerance = tolerance > 0 ? tolerance : 0
    this.sortArrays = config.sort_arrays
    this.elementHash = { tolerance: this.tolerance, filter: this.filter }
    Object.freeze(this)
  }
}

/** Compiles a DiffConfig once for many comparisons; see CompiledDiffConfig. */
export function compileDiffConfig(
  config: DiffConfig,
  alsoIgnored: readonly string[] = [],
): CompiledDiffConfig {
  return new CompiledDiffConfig(config, alsoIgnored)
}
