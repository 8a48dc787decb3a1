/**
 * A call to the API that did not get the answer it needed: refused (a
 * problem, with its status and RFC 7807 `type`), or never answered. Its
 * message is the one line a command prints before exiting.
 */
export class ApiCallError extends Error {
  readonly code = 'api-call-failed'
  constructor(
    message: string,
    /** The HTTP status, or 0 when the API never answered. */
    readonly status: number,
    /** The problem's `type`, when the API sent one. */
    readonly problemType?: string,
  ) {
    super(message)
  }
}
