import { Elysia, ValidationError } from 'elysia'
import {
  AppError,
  InvalidBodyError,
  InvalidParameterError,
  MethodNotAllowedError,
  NotFoundError,
  UnauthorizedError,
  UnavailableError,
} from '../../errors/app-error.ts'
import type { Logger } from '../../log/index.ts'
import { problemResponse } from '../../errors/problem.ts'
import { problemFromError } from '../problem.ts'
import { CAPTURE_REJECTED_MEMBER, CaptureRejectedError } from '../capture-rejected.ts'
import { dataException, sqlState } from '../../store/sql-errors.ts'
import { requestFacts } from '../request-context.ts'
import type { RouteTable } from '../route-table.ts'

export interface ProblemHandlerOptions {
  readonly logger: Logger
  /** Known routes, to tell a wrong method (405) from an unknown path (404). */
  readonly routes: RouteTable
  /** The schema's readiness (`schema-readiness.ts`), to tell a database never migrated from a bug. */
  readonly schema?: SchemaCheck
}

/** What the handler asks of `SchemaReadiness`. */
export interface SchemaCheck {
  /** undefined when the schema is this build's, else what is wrong with it; never throws. */
  problem(timeoutMs: number): Promise<string | undefined>
}

/**
 * The one place where errors become RFC 7807 responses (docs/architecture.md
 * "Errors: RFC 7807 in one place"): Elysia's validation failures (its 422)
 * become 400, parse failures 400, unknown paths 404, wrong methods 405,
 * AppErrors their own status, a value the database refused 400, a
 * statement that failed because the schema is behind this build's 503
 * (run `bun run migrate`), and anything
 * else a 500 that is logged with its cause and says nothing internal (a
 * capture's own failure marked `capture_rejected`, capture-rejected.ts). A
 * problem names the field and the rule, never the value, which may be a secret.
 */
export function problemHandler(options: ProblemHandlerOptions) {
  return new Elysia({ name: 'problem-handler' }).onError({ as: 'global' }, async ({ code, error, request, path }) => {
    const facts = requestFacts(request)
    // Refused before routing (401, 429): the metric still names the route it asked for.
    facts.route ??= options.routes.templateFor(request.method, path)
    const known = toAppError(code, error, request.method, path, options.routes) ?? (await schemaBehind(error, options.schema))
    if (!known) {
      options.logger.error('unexpected error', {
        'request.id': facts.requestId,
        'request.method': request.method,
        'request.path': path,
        error: errorForLog(code, error),
      })
    }
    const problem = problemFromError(known ?? error, path, facts.requestId)
    if (error instanceof CaptureRejectedError) problem[CAPTURE_REJECTED_MEMBER] = true
    const headers: Record<string, string> = {}
    if (known instanceof MethodNotAllowedError) headers['Allow'] = known.allowed.join(', ')
    if (known && 'retryAfterSeconds' in known) headers['Retry-After'] = String(known.retryAfterSeconds)
    // RFC 6750 §3: a 401 names the scheme it wants.
    if (known instanceof UnauthorizedError) headers['WWW-Authenticate'] = 'Bearer'
    return problemResponse(problem, headers)
  })
}

function toAppError(code: unknown, error: unknown, method: string, path: string, routes: RouteTable) {
  if (error instanceof AppError) return error
  switch (code) {
    case 'VALIDATION':
      // A response that fails its own schema is the API's fault, not the
      // client's: unknown here, so it is logged and answered 500.
      if ((error as ValidationError).type === 'response') return undefined
      return validationToAppError(error as ValidationError)
    case 'PARSE': {
      // Elysia wraps what a parser throws: ours (json-body.ts) says why.
      const cause = (error as Error).cause
      return cause instanceof AppError ? cause : new InvalidBodyError('the request body is not valid JSON')
    }
    case 'NOT_FOUND': {
      const allowed = routes.methodsFor(path)
      // The path is the problem's `instance`; the detail does not repeat it (a path may hold a token).
      if (allowed.length > 0 && !allowed.includes(method)) {
        return new MethodNotAllowedError(`${method} is not allowed on this path; allowed: ${allowed.join(', ')}`, allowed)
      }
      return new NotFoundError(`no route matches ${method} on this path`)
    }
    default: {
      // A value the database refused (SQLSTATE class 22) is the client's
      // data, whatever route it came by: a 400, never a 500.
      const reason = dataException(error)
      if (reason === undefined) return undefined
      return BODY_METHODS.has(method)
        ? new InvalidBodyError(`the request body cannot be stored: ${reason}`)
        : new InvalidParameterError(`the request cannot be answered: ${reason}`)
    }
  }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH'])

/** When to try again after a 503 for a schema behind: about when an operator's migration may be through. */
const SCHEMA_RETRY_SECONDS = 30
/** The schema check of a failed statement is bounded: the answer must not wait on a database that hangs. */
const SCHEMA_CHECK_MS = 1000

/**
 * A 503 when the statement failed for a name the database lacks (SQLSTATE
 * class 42: no such table, column or function) and the schema is indeed
 * behind this build's: the operator's to fix, with how. The same class
 * on an up-to-date schema is a bug, answered 500 as any other.
 */
async function schemaBehind(error: unknown, schema: SchemaCheck | undefined): Promise<UnavailableError | undefined> {
  if (schema === undefined || !sqlState(error)?.startsWith('42')) return undefined
  const problem = await schema.problem(SCHEMA_CHECK_MS)
  return problem === undefined ? undefined : new UnavailableError(`the database is not ready for this build: ${problem}`, SCHEMA_RETRY_SECONDS)
}

function validationToAppError(error: ValidationError) {
  const messages = describeValidation(error)
  const detail = messages.slice(0, 3).join('; ') + (messages.length > 3 ? `; and ${messages.length - 3} more` : '')
  return error.type === 'body' ? new InvalidBodyError(detail || 'the request body is invalid') : new InvalidParameterError(detail || `invalid ${error.type}`)
}

function describeValidation(error: ValidationError): string[] {
  try {
    const messages = validationIssues(error).map(describeIssue).filter((m) => m !== '')
    if (messages.length > 0) return [...new Set(messages)]
  } catch {
    // fall through to the generic message
  }
  return [`invalid ${error.type}`]
}

/** The schema's issues with the value, as arktype gives them (ArkError objects). */
function validationIssues(error: ValidationError): unknown[] {
  const validator = error.validator as Record<string, unknown> & { schema?: Record<string, unknown> }
  const standard = ('~standard' in validator ? validator : validator.schema)?.['~standard'] as
    | { validate(value: unknown): { issues?: readonly unknown[] } | Promise<unknown> }
    | undefined
  const result = standard?.validate(error.value)
  return result && !(result instanceof Promise) && Array.isArray(result.issues) ? result.issues : []
}

interface Issue {
  code?: string
  path?: readonly unknown[]
  propString?: string
  expected?: string
  errors?: readonly Issue[]
}

/** An unknown key is named when it reads as a field name (a typo to fix), not when it could be anything else. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/**
 * One issue as "<field> must be <rule>", never with the value: arktype's
 * own message ends in "(was …)", which for a header map repeated every
 * header, Authorization included, and for a path or query its text. A
 * union names each branch's rule. An unknown key (arktype: "must be
 * removed") reads as "unknown field <name>" when it looks like a field
 * name, and is not repeated otherwise (a query string's token).
 */
function describeIssue(issue: unknown): string {
  const { code, path, propString, expected, errors } = issue as Issue
  const field = propString || 'the value'
  if (code === 'union' && errors && errors.length > 0) {
    const rules = new Map<string, string[]>()
    for (const branch of errors.flatMap(leaves)) {
      const list = rules.get(branch.propString || 'the value') ?? []
      if (branch.expected !== undefined && !list.includes(branch.expected)) list.push(branch.expected)
      rules.set(branch.propString || 'the value', list)
    }
    return [...rules].map(([name, list]) => `${name} must be ${list.join(' or ')}`).join(' or ')
  }
  if (expected === 'removed') {
    const key = path?.at(-1)
    return typeof key === 'string' && FIELD_NAME.test(key)
      ? `unknown field ${field} (only the documented fields are accepted)`
      : 'an unknown field (only the documented fields are accepted; its name is not repeated)'
  }
  return expected === undefined ? '' : `${field} must be ${expected}`
}

function leaves(issue: Issue): Issue[] {
  return issue.code === 'union' && issue.errors && issue.errors.length > 0 ? issue.errors.flatMap(leaves) : [issue]
}

/**
 * What the log keeps of an unexpected error. A response that failed its
 * schema is named by its failures only: Elysia's message carries the whole
 * response, megabytes of base64 bodies for getRequest.
 */
function errorForLog(code: unknown, error: unknown): string {
  if (code === 'VALIDATION' && (error as ValidationError).type === 'response') {
    return `the response failed its own schema: ${describeValidation(error as ValidationError).slice(0, 3).join('; ')}`
  }
  // The capture's own failure: what failed is the cause.
  const shown = error instanceof CaptureRejectedError ? error.cause : error
  return shown instanceof Error ? (shown.stack ?? shown.message) : String(shown)
}
