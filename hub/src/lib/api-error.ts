import type { Problem } from './types.ts'

/**
 * Why a call to the API failed, as a value the pages can switch on:
 * the network (API down, CORS refused, DNS), or an HTTP error with its
 * RFC 7807 body when the API sent one.
 */
export type ApiFailure =
  | { readonly kind: 'network'; readonly message: string }
  | { readonly kind: 'http'; readonly status: number; readonly problem: Problem | undefined }
  | { readonly kind: 'invalid-response'; readonly message: string }

export class ApiError extends Error {
  override readonly name = 'ApiError'
  constructor(
    readonly failure: ApiFailure,
    readonly url: string,
  ) {
    super(describeFailure(failure))
  }

  /** HTTP status, or 0 when no response arrived. */
  get status(): number {
    return this.failure.kind === 'http' ? this.failure.status : 0
  }

  /** The Problem's `detail`, which names the offending field on a 400. */
  get detail(): string | undefined {
    return this.failure.kind === 'http' ? this.failure.problem?.detail : undefined
  }
}

export function describeFailure(failure: ApiFailure): string {
  switch (failure.kind) {
    case 'network':
      return `the API could not be reached (${failure.message})`
    case 'http': {
      const p = failure.problem
      if (!p) return `the API answered HTTP ${failure.status}`
      return p.detail ? `${p.title}: ${p.detail}` : p.title
    }
    case 'invalid-response':
      return `the API sent an unexpected response (${failure.message})`
  }
}

/** True for the DOMException fetch throws when its signal aborts. */
export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError'
}

export function isProblem(value: unknown): value is Problem {
  if (typeof value !== 'object' || value === null) return false
  const v = value as Record<string, unknown>
  return typeof v.title === 'string' && typeof v.status === 'number'
}
