import { Elysia, ValidationError } from 'elysia'
import {
  AppError,
  InvalidBodyError,
  InvalidParameterError,
  MethodNotAllowedError,
  NotFoundError,
  UnauthorizedError,
} from '../../errors/app-error.ts'
import type { Logger } from '../../log/index.ts'
import { problemResponse } from '../../errors/problem.ts'
import { problemFromError } from '../problem.ts'
import { requestFacts } from '../request-context.ts'
import type { RouteTable } from '../route-table.ts'

export interface ProblemHandlerOptions {
  readonly logger: Logger
  /** Known routes, to tell a wrong method (405) from an unknown path (404). */
  readonly routes: RouteTable
}

/**
 * The one place where errors become RFC 7807 responses (STYLE.md rule 7):
 * Elysia's validation failures (its 422) become 400, parse failures 400,
 * unknown paths 404, wrong methods 405, AppErrors their own status, and
 * anything else a 500 that is logged with its cause and says nothing internal.
 */
export function problemHandler(options: ProblemHandlerOptions) {
  return new Elysia({ name: 'problem-handler' }).onError({ as: 'global' }, ({ code, error, request, path }) => {
    const facts = requestFacts(request)
    // Refused before routing (401, 429): the metric still names the route it asked for.
    facts.route ??= options.routes.templateFor(request.method, path)
    const known = toAppError(code, error, request.method, path, options.routes)
    if (!known) {
      options.logger.error('unexpected error', {
        'request.id': facts.requestId,
        'request.method': request.method,
        'request.path': path,
        error: errorForLog(code, error),
      })
    }
    const problem = problemFromError(known ?? error, path, facts.requestId)
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
      if (allowed.length > 0 && !allowed.includes(method)) {
        return new MethodNotAllowedError(`${method} is not allowed on ${path}; allowed: ${allowed.join(', ')}`, allowed)
      }
      return new NotFoundError(`no route matches ${method} ${path}`)
    }
    default:
      return undefined
  }
}

function validationToAppError(error: ValidationError) {
  const messages = describeValidation(error)
  const detail = messages.slice(0, 3).join('; ') + (messages.length > 3 ? `; and ${messages.length - 3} more` : '')
  return error.type === 'body' ? new InvalidBodyError(detail || 'the request body is invalid') : new InvalidParameterError(detail || `invalid ${error.type}`)
}

function describeValidation(error: ValidationError): string[] {
  try {
    const all = error.all as Array<{ message?: string; summary?: string; path?: string }>
    const messages = all.map((e) => plainer(e.message ?? e.summary ?? '')).filter((m) => m !== '')
    if (messages.length > 0) return [...new Set(messages)]
  } catch {
    // fall through to the generic message
  }
  return [`invalid ${error.type}`]
}

/** arktype says "nmae must be removed" of an unknown key; a client reads "unknown field" sooner. */
function plainer(message: string): string {
  return message.replace(/^(.+) must be removed$/, 'unknown field $1 (only the documented fields are accepted)')
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
  return error instanceof Error ? (error.stack ?? error.message) : String(error)
}
