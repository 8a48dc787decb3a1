/**
 * Per-request facts that the outer handler learns before Elysia runs (the
 * peer address from the socket, the request id) and that plugins and routes
 * read. Keyed by the Request object itself, so nothing leaks between
 * requests and nothing outlives them.
 */
export interface RequestFacts {
  readonly requestId: string
  readonly peerAddress: string
  /** The matched route template, once Elysia has routed the request. */
  route?: string
}

const facts = new WeakMap<Request, RequestFacts>()

export function setRequestFacts(request: Request, value: RequestFacts): void {
  facts.set(request, value)
}

export function requestFacts(request: Request): RequestFacts {
  return facts.get(request) ?? { requestId: '', peerAddress: '' }
}
