/**
 * createRequest failed because of what the submitted capture holds, not
 * because the API or its database is unwell: an unexpected exception while
 * redacting or diffing it, or the database refusing its row for what it
 * holds (src/store/sql-errors.ts isRowRefusal). Answered 500, like any
 * unexpected error, and logged with its cause, but the problem carries
 * the extension member `"capture_rejected": true` (RFC 7807 §3.2): sent
 * again, the same capture fails again, so a proxy neither retries it nor
 * counts it as the API failing (README "API overview").
 */
export class CaptureRejectedError extends Error {
  readonly code = 'capture-rejected'
  constructor(cause: unknown) {
    super('the capture could not be processed', { cause })
    this.name = 'CaptureRejectedError'
  }
}

/** The RFC 7807 extension member on such a problem; proxies rely on this exact name. */
export const CAPTURE_REJECTED_MEMBER = 'capture_rejected'
