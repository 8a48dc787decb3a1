/**
 * A small Dockerfile reader for the container tests: enough of the
 * Dockerfile reference (https://docs.docker.com/reference/dockerfile/) to
 * check the instructions this repository uses and to replay its stages.
 * Parser directives and comments are dropped, `\` continues a line, a
 * comment line inside a continued instruction is skipped (as BuildKit does).
 */

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY... */
  readonly keyword: string
  /** Everything after the keyword, continuation lines joined with a space. */
  readonly args: string
  /** 1-based line of the keyword. */
  readonly line: number
}

export interface Stage {
  readonly index: number
  /** The `AS` name, lower-cased; undefined for an unnamed stage. */
  readonly name: string | undefined
  /** The base as written (`oven/bun:${BUN_VERSION}-slim`, `runtime`). */
  readonly baseRaw: string
  /** The base with global ARG defaults substituted. */
  readonly base: string
  /** The earlier stage it builds on, when the base names one. */
  readonly parent: Stage | undefined
  readonly from: Instruction
  /** The instructions after FROM. */
  readonly instructions: readonly Instruction[]
}

export interface Dockerfile {
  /** ARGs declared before the first FROM, with their defaults. */
  readonly globalArgs: Readonly<Record<string, string | undefined>>
  readonly stages: readonly Stage[]
}

export interface Healthcheck {
  readonly flags: Readonly<Record<string, string>>
  /** The exec-form command after `CMD`, or undefined for a shell-form one. */
  readonly exec: readonly string[] | undefined
  readonly raw: string
}

/** What `docker inspect` would show for the image a stage produces. */
export interface ImageConfig {
  readonly env: Readonly<Record<string, string>>
  readonly user: string | undefined
  readonly workdir: string
  readonly expose: readonly number[]
  readonly healthcheck: Healthcheck | undefined
  readonly entrypoint: readonly string[] | undefined
  readonly cmd: readonly string[] | undefined
  readonly stopSignal: string | undefined
  readonly labels: Readonly<Record<string, string>>
}

/** Splits the text into instructions. */
export function parseInstructions(text: string): Instruction[] {
  const out: Instruction[] = []
  const lines = text.split(/\r?\n/)
  let pending: { parts: string[]; line: number } | undefined
  lines.forEach((raw, i) => {
    const trimmed = raw.trim()
    if (trimmed.startsWith('#') || (trimmed === '' && pending)) return
    if (trimmed === '') return
    const continues = /\\\s*$/.test(raw)
    const body = continues ? raw.replace(/\\\s*$/, '').trim() : trimmed
    if (pending) pending.parts.push(body)
    else pending = { parts: [body], line: i + 1 }
    if (continues) return
    const joined = pending.parts.filter((p) => p !== '').join(' ')
    const match = /^(\S+)\s*(.*)$/s.exec(joined)
    if (match)
      out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim(), line: pending.line })
    pending = undefined
  })
  if (pending) throw new Error(`line ${pending.line}: instruction ends with a line continuation`)
  return out
}

/** Parses the file into global ARGs and stages. */
export function parseDockerfile(text: string): Dockerfile {
  const instructions = parseInstructions(text)
  const globalArgs: Record<string, string | undefined> = {}
  const stages: Stage[] = []
  let current: { from: Instruction; body: Instruction[] } | undefined
  const close = () => {
    if (!current) return
    const { from, body } = current
    const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?\s*$/i.exec(from.args)
    if (!m) throw new Error(`line ${from.line}: cannot read FROM ${from.args}`)
    const baseRaw = m[1]!
    const base = substitute(baseRaw, globalArgs)
    const parent = stages.find((s) => s.name === base.toLowerCase())
    stages.push({
      index: stages.length,
      name: m[2]?.toLowerCase(),
      baseRaw,
      base,
      parent,
      from,
      instructions: body,
    })
  }
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      close()
      current = { from: ins, body: [] }
    } else if (!current) {
      if (ins.keyword !== 'ARG')
        throw new Error(`line ${ins.line}: only ARG may come before the first FROM`)
      for (const [k, v] of Object.entries(parseKeyValues(ins.args, true))) globalArgs[k] = v
    } else {
      current.body.push(ins)
    }
  }
  close()
  return { globalArgs, stages }
}

/** `$VAR` and `${VAR}` (and `${VAR:-default}`) from `vars`; unknown ones become empty. */
export function substitute(
  text: string,
  vars: Readonly<Record<string, string | undefined>>,
): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_, braced, fallback, bare) => {
      const value = vars[(braced ?? bare) as string]
      return value === undefined || value === '' ? (fallback ?? '') : value
    },
  )
}

/**
 * `KEY=value KEY2="two words"` (ENV, LABEL, ARG). The legacy `ENV KEY value`
 * form is accepted too. With `allowBare`, `ARG NAME` gives NAME → undefined.
 */
export function parseKeyValues(
  args: string,
  allowBare = false,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {}
  if (!args.includes('=')) {
    const [key, ...rest] = args.split(/\s+/)
    out[key!] = rest.length > 0 ? rest.join(' ') : allowBare ? undefined : ''
    return out
  }
  const re = /([A-Za-z_][A-Za-z0-9_.-]*)(?:=("(?:[^"\\]|\\.)*"|'[^']*'|\S*))?/g
  for (const m of args.matchAll(re)) {
    const raw = m[2]
    if (raw === undefined) {
      if (!allowBare) throw new Error(`expected KEY=value in ${args}`)
      out[m[1]!] = undefined
    } else if (raw.startsWith('"')) out[m[1]!] = raw.slice(1, -1).replace(/\\(.)/g, '$1')
    else if (raw.startsWith("'")) out[m[1]!] = raw.slice(1, -1)
    else out[m[1]!] = raw
  }
  return out
}

/** Leading `--name=value` / `--name` flags, and what follows them. */
export function splitFlags(args: string): { flags: Record<string, string>; rest: string } {
  const flags: Record<string, string> = {}
  let rest = args
  for (;;) {
    const m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest)
    if (!m) break
    flags[m[1]!] = m[2] ?? 'true'
    rest = rest.slice(m[0].length)
  }
  return { flags, rest: rest.trim() }
}

/** The JSON array of an exec-form instruction, or undefined for shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined
  const value: unknown = JSON.parse(args)
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`exec form must be a JSON array of strings: ${args}`)
  }
  return value as string[]
}

/** The stage a `--target` names. */
export function stageNamed(file: Dockerfile, name: string): Stage {
  const stage = file.stages.find((s) => s.name === name)
  if (!stage) throw new Error(`no stage named ${name}`)
  return stage
}

/** The first stage of a FROM chain: the one built on an image from outside this file. */
export function rootOf(stage: Stage): Stage {
  return stage.parent ? rootOf(stage.parent) : stage
}

/** The image configuration of a stage: its parents' settings, then its own. */
export function imageConfig(stage: Stage): ImageConfig {
  const base: ImageConfig = stage.parent
    ? imageConfig(stage.parent)
    : {
        env: {},
        user: undefined,
        workdir: '/',
        expose: [],
        healthcheck: undefined,
        entrypoint: undefined,
        cmd: undefined,
        stopSignal: undefined,
        labels: {},
      }
  const env: Record<string, string> = { ...base.env }
  const labels: Record<string, string> = { ...base.labels }
  let { user, workdir, healthcheck, entrypoint, cmd, stopSignal } = base
  const expose = [...base.expose]
  for (const ins of stage.instructions) {
    switch (ins.keyword) {
      case 'ENV':
        for (const [k, v] of Object.entries(parseKeyValues(substitute(ins.args, env))))
          env[k] = v ?? ''
        break
      case 'LABEL':
        for (const [k, v] of Object.entries(parseKeyValues(ins.args))) labels[k] = v ?? ''
        break
      case 'USER':
        user = ins.args
        break
      case 'WORKDIR':
        workdir = resolveContainerPath(workdir, substitute(ins.args, env))
        break
      case 'EXPOSE':
        for (const p of ins.args.split(/\s+/)) expose.push(Number(p.replace(/\/tcp$/, '')))
        break
      case 'HEALTHCHECK':
        healthcheck = parseHealthcheck(ins.args)
        break
      case 'ENTRYPOINT':
        entrypoint = execForm(ins.args) ?? ['/bin/sh', '-c', ins.args]
        // An ENTRYPOINT resets an inherited CMD (Dockerfile reference, "ENTRYPOINT").
        cmd = undefined
        break
      case 'CMD':
        cmd = execForm(ins.args) ?? ['/bin/sh', '-c', ins.args]
        break
      case 'STOPSIGNAL':
        stopSignal = ins.args
        break
    }
  }
  return { env, user, workdir, expose, healthcheck, entrypoint, cmd, stopSignal, labels }
}

function parseHealthcheck(args: string): Healthcheck | undefined {
  if (/^NONE$/i.test(args)) return undefined
  const { flags, rest } = splitFlags(args)
  const m = /^CMD\s+(.*)$/is.exec(rest)
  if (!m) throw new Error(`HEALTHCHECK must be NONE or [options] CMD ...: ${args}`)
  return { flags, exec: execForm(m[1]!.trim()), raw: m[1]!.trim() }
}

/** POSIX path join as the Dockerfile resolves WORKDIR and COPY destinations. */
export function resolveContainerPath(from: string, to: string): string {
  const joined = to.startsWith('/') ? to : `${from.replace(/\/$/, '')}/${to}`
  const parts: string[] = []
  for (const seg of joined.split('/')) {
    if (seg === '' || seg === '.') continue
    if (seg === '..') parts.pop()
    else parts.push(seg)
  }
  return `/${parts.join('/')}`
}
