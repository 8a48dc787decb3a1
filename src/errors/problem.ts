/**
 * RFC 7807 problem details (docs/reference/api.md "Problems"); used by the API,
 * the proxy and the module.
 */
export interface Problem {
  type: string
  title: string
  status: number
  detail?: string
  instance?: string
  /**
   * Extension member (RFC 7807 §3.2) of a createRequest 500 caused by the
   * submitted capture itself: sent again, it fails again (src/api/capture-rejected.ts).
   */
  capture_rejected?: true
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, ...headers },
  })
}
