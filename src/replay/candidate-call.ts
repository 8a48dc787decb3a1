import type { HeaderMap } from '../diff/index.ts'
import type { CandidateRequest } from './replay-plan.ts'

/** The candidate's answer as createRequest takes a shadow response (bodies as bytes). */
export interface CandidateResponse {
  readonly status_code: number
  readonly headers: HeaderMap
  readonly body: Uint8Array
  readonly latency_ms: number
  readonly created_at: string
  /** The candidate gave no response: status 0, the error text as body (docs/diff.md). */
  readonly failed: boolean
}

export interface CandidateCallOptions {
  /** The candidate's base URL, without a trailing slash. */
  readonly baseUrl: string
  readonly timeoutMs: number
  /** A larger body is a failure, `response too large`, as the proxy words it. */
  readonly maxBodyBytes: number
  readonly now: () => Date
}

class ResponseTooLarge extends Error {}

/**
 * Sends one replayed request to the candidate and reads its whole answer:
 * status, headers and the body bytes exactly as sent (no decompression, no
 * redirect followed), like the proxy's shadow. A failure is a response of
 * status 0 whose body is the error text in the proxy's words (`shadow:
 * timed out after …`, `shadow: connection refused`, …), so that its
 * error signature is the one live shadowing would give it.
 */
export async function callCandidate(request: CandidateRequest, options: CandidateCallOptions): Promise<CandidateResponse> {
  const started = performance.now()
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), options.timeoutMs)
  const latency = () => Math.round(performance.now() - started)
  try {
    const response = await fetch(options.baseUrl + request.target, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      decompress: false,
      signal: controller.signal,
    })
    const body = await readBounded(response, options.maxBodyBytes)
    return { status_code: response.status, headers: headerMap(response.headers), body, latency_ms: latency(), created_at: options.now().toISOString(), failed: false }
  } catch (error) {
    const text = failureText(error, controller.signal.aborted, options)
    return { status_code: 0, headers: {}, body: new TextEncoder().encode(text), latency_ms: latency(), created_at: options.now().toISOString(), failed: true }
  } finally {
    clearTimeout(timer)
  }
}

async function readBounded(response: Response, max: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0)
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (declared > max) {
    await response.body.cancel()
    throw new ResponseTooLarge()
  }
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of response.body) {
    size += chunk.byteLength
    if (size > max) throw new ResponseTooLarge()
    chunks.push(chunk)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

/** Every value under its name as the candidate sent them; Set-Cookie kept apart, as Headers joins the others. */
function headerMap(headers: Headers): HeaderMap {
  const map: HeaderMap = {}
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') map[name] = [value]
  })
  const cookies = headers.getSetCookie()
  if (cookies.length > 0) map['set-cookie'] = cookies
  return map
}

/** The proxy's wording for each failure (docs/insights.md "Signatures", error classes). */
function failureText(error: unknown, timedOut: boolean, options: CandidateCallOptions): string {
  if (error instanceof ResponseTooLarge) return `shadow: response too large (over ${options.maxBodyBytes} bytes)`
  if (timedOut) return `shadow: timed out after ${options.timeoutMs} ms`
  const code = String((error as { code?: unknown }).code ?? '')
  if (code === 'ConnectionRefused' || code === 'ECONNREFUSED') return 'shadow: connection refused'
  if (code === 'ECONNRESET' || code === 'ConnectionClosed') return 'shadow: connection reset'
  return `shadow: ${error instanceof Error ? error.message : String(error)}`
}
