/**
 * Header name to every value received under it (docs/reference/api.md "Capture
 * (request)", Response).
 */
export type HeaderMap = Record<string, string[]>

/**
 * One upstream response as captured. `status` 0 means the upstream failed
 * (timeout, refused connection, reset) and `body` holds the error text
 * (docs/diff.md "What is compared").
 */
export interface CapturedResponse {
  status: number
  headers: HeaderMap
  body: Uint8Array
}

/** The request as captured; only headers and body are redacted or compared. */
export interface CapturedRequest {
  headers: HeaderMap
  body: Uint8Array
}
