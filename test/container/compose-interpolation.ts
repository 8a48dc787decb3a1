/**
 * Compose's variable interpolation
 * (https://docs.docker.com/reference/compose-file/interpolation/), the forms
 * compose.yaml uses: `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:?message}`, `${VAR?message}` and `$$` for a literal `$`.
 */
export class MissingVariableError extends Error {
  override readonly name = 'MissingVariableError'
  constructor(
    readonly variable: string,
    readonly hint: string,
  ) {
    super(`required variable ${variable} is missing a value: ${hint}`)
  }
}

const REFERENCE =
  /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g

export function interpolate(
  text: string,
  vars: Readonly<Record<string, string | undefined>>,
): string {
  return text.replace(
    REFERENCE,
    (
      whole,
      braced: string | undefined,
      colon: string | undefined,
      op: string | undefined,
      arg: string | undefined,
      bare: string | undefined,
    ) => {
      if (whole === '$$') return '$'
      const name = (braced ?? bare)!
      const value = vars[name]
      // With the colon, an empty value counts as unset.
      const unset = value === undefined || (colon === ':' && value === '')
      if (op === '-') return unset ? arg! : value!
      if (op === '?') {
        if (unset) throw new MissingVariableError(name, arg!)
        return value!
      }
      return value ?? ''
    },
  )
}

/** The names a text refers to, with the operator each uses (`:?`, `:-`, or none). */
export function references(text: string): { name: string; op: string }[] {
  const out: { name: string; op: string }[] = []
  for (const m of text.matchAll(REFERENCE)) {
    if (m[0] === '$$') continue
    out.push({ name: (m[1] ?? m[5])!, op: `${m[2] ?? ''}${m[3] ?? ''}` })
  }
  return out
}

/** Interpolates every string in a parsed YAML value. */
export function interpolateDeep(
  value: unknown,
  vars: Readonly<Record<string, string | undefined>>,
): unknown {
  if (typeof value === 'string') return interpolate(value, vars)
  if (Array.isArray(value)) return value.map((v) => interpolateDeep(v, vars))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDeep(v, vars)]))
  }
  return value
}
