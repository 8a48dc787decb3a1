/**
 * Bucket upper bounds for `http.server.request.duration` and
 * `http.client.request.duration`, in seconds, as the OpenTelemetry HTTP
 * semantic conventions advise.
 */
export const HTTP_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10,
] as const

/**
 * Bucket upper bounds for `svc_diff_operations`, a count of JSON Patch
 * operations: most diffs touch a field or two, a broken shadow rewrites
 * hundreds.
 */
export const DIFF_OPERATION_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] as const
