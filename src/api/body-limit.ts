import { PayloadTooLargeError } from '../errors/app-error.ts'

/**
 * Enforces SVC_APP_MAX_BODY_SIZE before anything parses the body. A
 * declared Content-Length over the limit is refused at once; a chunked body
 * is read up to the limit and refused as soon as it passes it, so an
 * oversized upload never sits in memory whole. Returns the request to hand
 * on (a buffered copy when the body was chunked).
 */
export async function limitBody(request: Request, limitBytes: number): Promise<Request> {
  if (!request.body) return request
  const declared = request.headers.get('content-length')
  if (declared !== null) {
    if (Number(declared) > limitBytes) throw new PayloadTooLargeError(limitBytes)
    return request
  }
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limitBytes) {
      await reader.cancel()
      throw new PayloadTooLargeError(limitBytes)
    }
    chunks.push(value)
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body: Buffer.concat(chunks) })
}
