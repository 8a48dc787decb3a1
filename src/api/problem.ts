import { AppError, type AppErrorCode } from '../errors/app-error.ts'
import type { Problem } from '../errors/problem.ts'

const KINDS: Record<AppErrorCode | 'internal', { status: number; title: string }> = {
  'invalid-request-body': { status: 400, title: 'Invalid request body' },
  'invalid-parameter': { status: 400, title: 'Invalid parameter' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  'not-found': { status: 404, title: 'Not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'misdirected-request': { status: 421, title: 'Misdirected request' },
  conflict: { status: 409, title: 'Conflict' },
  'payload-too-large': { status: 413, title: 'Payload too large' },
  'rate-limited': { status: 429, title: 'Too many requests' },
  unavailable: { status: 503, title: 'Service unavailable' },
  internal: { status: 500, title: 'Internal server error' },
}

/**
 * Builds the Problem for a code. `instance` (the request path) is set on
 * 4xx only: a 500 says nothing about what was being done.
 */
export function problemFor(code: AppErrorCode | 'internal', detail: string | undefined, path: string): Problem {
  const kind = KINDS[code]
  const problem: Problem = { type: `/errors/${code}`, title: kind.title, status: kind.status }
  if (detail) problem.detail = detail
  if (kind.status < 500) problem.instance = path
  return problem
}

/** The Problem for an AppError; anything else is an internal error. */
export function problemFromError(error: unknown, path: string, requestId?: string): Problem {
  if (error instanceof AppError) return problemFor(error.code, (error as { detail?: string }).detail ?? error.message, path)
  const ref = requestId ? ` (request id ${requestId})` : ''
  return problemFor('internal', `an unexpected error occurred; it has been logged${ref}`, path)
}
