/**
 * Errors the service raises on purpose. Each has a stable `code`, which the
 * API's problem handler maps to an RFC 7807 `type` and an HTTP status, and
 * readonly context. Anything that is not an AppError is unexpected: it is
 * logged with its cause and answered 500 with nothing internal.
 */
export abstract class AppError extends Error {
  abstract readonly code: AppErrorCode
}

export const APP_ERROR_CODES = [
  'invalid-request-body',
  'invalid-parameter',
  'unauthorized',
  'not-found',
  'method-not-allowed',
  'misdirected-request',
  'conflict',
  'payload-too-large',
  'rate-limited',
  'unavailable',
] as const
export type AppErrorCode = (typeof APP_ERROR_CODES)[number]

/** A body field is missing, of the wrong type, or breaks a rule. */
export class InvalidBodyError extends AppError {
  readonly code = 'invalid-request-body'
  constructor(
    readonly detail: string,
    readonly field?: string,
  ) {
    super(detail)
  }
}

/** A path or query parameter is malformed or out of range. */
export class InvalidParameterError extends AppError {
  readonly code = 'invalid-parameter'
  constructor(
    readonly detail: string,
    readonly parameter?: string,
  ) {
    super(detail)
  }
}

export class UnauthorizedError extends AppError {
  readonly code = 'unauthorized'
  constructor(readonly detail = 'a valid "Authorization: Bearer <key>" header is required') {
    super(detail)
  }
}

export class NotFoundError extends AppError {
  readonly code = 'not-found'
  constructor(readonly detail: string) {
    super(detail)
  }
}

export class MethodNotAllowedError extends AppError {
  readonly code = 'method-not-allowed'
  constructor(
    readonly detail: string,
    readonly allowed: readonly string[],
  ) {
    super(detail)
  }
}

/**
 * The request's Host is not one this server answers to (RFC 9110 §15.5.20):
 * a page whose name was re-pointed at the server (DNS rebinding).
 */
export class MisdirectedRequestError extends AppError {
  readonly code = 'misdirected-request'
  constructor(readonly detail = 'this server does not answer to the host named in the request (SVC_APP_ALLOWED_HOSTS)') {
    super(detail)
  }
}

/** A create or update clashes with an existing row (unique name, URL pair, id). */
export class ConflictError extends AppError {
  readonly code = 'conflict'
  constructor(readonly detail: string) {
    super(detail)
  }
}

export class PayloadTooLargeError extends AppError {
  readonly code = 'payload-too-large'
  constructor(
    readonly limitBytes: number,
    /** The body field over the limit (createRequest's decoded bodies); the whole request body when absent. */
    readonly field?: string,
  ) {
    super(
      field === undefined
        ? `the request body exceeds the limit of ${limitBytes} bytes`
        : `${field} exceeds the limit of ${limitBytes} bytes once decoded (SVC_APP_MAX_BODY_SIZE)`,
    )
  }
  get detail(): string {
    return this.message
  }
}

export class RateLimitedError extends AppError {
  readonly code = 'rate-limited'
  constructor(readonly retryAfterSeconds: number) {
    super(`rate limit exceeded; retry after ${retryAfterSeconds} s`)
  }
  get detail(): string {
    return this.message
  }
}

/** The API cannot take this now (too many captures waiting for the database); try again after `retryAfterSeconds`. */
export class UnavailableError extends AppError {
  readonly code = 'unavailable'
  constructor(
    readonly detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(detail)
  }
}
