/**
 * Shadow rules (docs/proxy.md "Which requests are shadowed"): which requests
 * are sent to the shadow as well as to live. The rule text (`SVC_APP_SHADOW_RULES`, the
 * module's `shadow_rules`) is parsed and compiled once at startup; deciding
 * a request is then a loop of string comparisons that allocates nothing but
 * the lower-cased (and, when needed, slash-merged) path.
 *
 * Decisions this file makes beyond the rule syntax:
 * - The list is split on `,`, so a pattern cannot contain a comma. Spaces
 *   around entries are ignored; an empty entry (`a,,b`, a trailing comma)
 *   is an error, as is any entry that is not exactly `ACTION METHOD:path`.
 *   A blank text means "no user rules" (base rules only).
 * - ACTION and METHOD are case-insensitive like the path. METHOD is `*` or
 *   an RFC 9110 token (`tchar`s), compared upper-cased; `*` is not a
 *   wildcard inside a longer method.
 * - The query string is never matched: everything from the first `?` of
 *   the request path is ignored, and a pattern containing `?` is rejected.
 *   The path is matched as received, except that percent-encoded
 *   unreserved characters are decoded (`/%61dmin` is `/admin`, as servers
 *   read it, so it cannot slip past a deny rule); every other escape stays,
 *   so `%2F` never turns into a segment separator. An empty path
 *   is matched as `/`.
 * - A pattern must start with `/` or `*`; one that does not could never
 *   match a request path and is rejected rather than guessed at.
 * - The base rules deny every method but GET, HEAD and OPTIONS, not only
 *   POST, PUT, DELETE and PATCH (see `BASE_SHADOW_RULES`), so no request is
 *   left unmatched by the rules.
 * - TRACE is shadowed only by a rule that names it: an `allow` rule with
 *   method `*` does not match it (a `deny` rule with `*` does).
 */
import { lowerCase, upperCase } from '../../text/case.ts'
import {
  compilePathPattern,
  decodeUnreserved,
  mergeSlashes,
  PathPatternError,
  type PathPattern,
} from './path-pattern.ts'

export const RULE_ACTIONS = ['allow', 'deny'] as const
export type RuleAction = (typeof RULE_ACTIONS)[number]

/** Where a rule comes from: the user's list, or the base rules appended after it. */
export const RULE_SOURCES = ['user', 'base'] as const
export type RuleSource = (typeof RULE_SOURCES)[number]

/**
 * The base rules, always appended after the user's: they cannot be
 * dropped, only overridden by an earlier user rule. By default only GET,
 * HEAD and OPTIONS are shadowed: every other method is denied, not only
 * POST, PUT, DELETE and PATCH, because denying four methods by name would
 * shadow every other one with side effects (WebDAV's MOVE, LOCK and
 * PROPPATCH, PURGE, CONNECT) and TRACE. The last entry matches every request, so it decides
 * whatever no earlier rule did (docs/proxy.md "Which requests are shadowed").
 */
export const BASE_SHADOW_RULES = 'allow GET:*,allow HEAD:*,allow OPTIONS:*,deny *:*'

/**
 * Methods that an `allow` rule with method `*` does not match: only a rule
 * naming them shadows them. A TRACE response echoes the request it got,
 * credentials included, into its body (RFC 9110 §9.3.8), where header
 * redaction cannot reach them.
 */
export const EXPLICIT_ONLY_METHODS = ['TRACE'] as const

export interface ShadowRule {
  readonly action: RuleAction
  /** Upper-cased method, or `*` for any method. */
  readonly method: string
  /** The compiled path pattern; `pattern.source` is the path as written. */
  readonly pattern: PathPattern
  /** The entry as written, trimmed: for logs and error messages. */
  readonly text: string
  readonly source: RuleSource
  /** 1-based position within its own list (the user's text, or the base rules). */
  readonly position: number
}

/**
 * The answer for one request, with the rule that gave it (a user rule or a
 * base rule), so the proxy can count a skip (`denied_by_rule`) and log
 * which rule it was. Every request matches some rule: the base rules end
 * with `deny *:*`.
 */
export interface ShadowDecision {
  readonly shadow: boolean
  readonly rule: ShadowRule
}

export interface ShadowRules {
  /** User rules in order, then the base rules. */
  readonly rules: readonly ShadowRule[]
  /**
   * Decides one request. `method` is compared case-insensitively; `path` is
   * the request's path, with or without its query string.
   */
  shouldShadow(method: string, path: string): ShadowDecision
}

/** A malformed entry in the rule list; fails startup with the rule and its position. */
export class ShadowRuleError extends Error {
  readonly code = 'invalid-shadow-rule'
  constructor(
    /** 1-based position of the entry in the comma-separated list. */
    readonly position: number,
    /** The entry as written, trimmed. */
    readonly rule: string,
    /** What is wrong, phrased to follow `rule N "..."`. */
    readonly reason: string,
  ) {
    super(`rule ${position} "${rule}" ${reason}`)
  }
}

const FORMAT = 'must be "ACTION METHOD:path"'
const ENTRY = /^(\S+)\s+(\S+)$/
/** RFC 9110 section 5.6.2: `token = 1*tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Parses a rule list (no base rules added). Throws `ShadowRuleError` on the first bad entry. */
export function parseShadowRules(text: string, source: RuleSource = 'user'): ShadowRule[] {
  if (text.trim() === '') return []
  return text.split(',').map((entry, index) => parseEntry(entry.trim(), index + 1, source))
}

function parseEntry(text: string, position: number, source: RuleSource): ShadowRule {
  const fail = (reason: string) => new ShadowRuleError(position, text, reason)
  const parts = ENTRY.exec(text)
  if (!parts) throw fail(FORMAT)
  const [, actionText, target] = parts as unknown as [string, string, string]
  const colon = target.indexOf(':')
  if (colon <= 0) throw fail(FORMAT)
  const action = actionText.toLowerCase()
  if (!isAction(action)) throw fail(`has action "${actionText}"; expected "allow" or "deny"`)
  const method = target.slice(0, colon).toUpperCase()
  if (method !== '*' && (!TOKEN.test(method) || method.includes('*'))) {
    throw fail(`has method "${target.slice(0, colon)}"; expected an HTTP method or "*"`)
  }
  const path = target.slice(colon + 1)
  let pattern: PathPattern
  try {
    pattern = compilePathPattern(path)
  } catch (error) {
    if (error instanceof PathPatternError)
      throw fail(`has path "${path}"; expected ${error.expected}`)
    throw error
  }
  return Object.freeze({ action, method, pattern, text, source, position })
}

function isAction(text: string): text is RuleAction {
  return (RULE_ACTIONS as readonly string[]).includes(text)
}

const BASE_RULES: readonly ShadowRule[] = Object.freeze(parseShadowRules(BASE_SHADOW_RULES, 'base'))
/** The last base rule, `deny *:*`: what decides a request no earlier rule matched. */
const CATCH_ALL = BASE_RULES[BASE_RULES.length - 1]!
const CATCH_ALL_DECISION: ShadowDecision = Object.freeze({ shadow: false, rule: CATCH_ALL })
const EXPLICIT_ONLY: ReadonlySet<string> = new Set(EXPLICIT_ONLY_METHODS)

/**
 * Compiles the user's rule list (may be blank or undefined) followed by the
 * base rules. Throws `ShadowRuleError` naming the first malformed entry.
 */
export function compileShadowRules(text: string | undefined): ShadowRules {
  const rules = Object.freeze([...parseShadowRules(text ?? ''), ...BASE_RULES])
  // One frozen decision per rule, built now, so a request allocates none.
  // The catch-all is not tested: it is what the loop falls through to.
  const compiled = rules.slice(0, -1).map((rule) => ({
    method: rule.method,
    /** `allow *:...`: every method but the explicit-only ones. */
    allowsAnyMethod: rule.method === '*' && rule.action === 'allow',
    keepsDoubledSlashes: rule.pattern.keepsDoubledSlashes,
    test: rule.pattern.test,
    decision: Object.freeze({ shadow: rule.action === 'allow', rule }) as ShadowDecision,
  }))

  function shouldShadow(method: string, path: string): ShadowDecision {
    const query = path.indexOf('?')
    const bare = query === -1 ? path : path.slice(0, query)
    const lower = bare === '' ? '/' : lowerCase(decodeUnreserved(bare))
    const upperMethod = upperCase(method)
    const explicitOnly = EXPLICIT_ONLY.has(upperMethod)
    let merged: string | undefined
    for (const rule of compiled) {
      // Evaluation rule 1: in order, the first match wins.
      if (rule.method === '*' ? explicitOnly && rule.allowsAnyMethod : rule.method !== upperMethod) continue
      const candidate = rule.keepsDoubledSlashes ? lower : (merged ??= mergeSlashes(lower))
      if (rule.test(candidate)) return rule.decision
    }
    return CATCH_ALL_DECISION
  }

  return Object.freeze({ rules, shouldShadow })
}
