/**
 * Reads a response body to its end, noting when its first chunk and its
 * end arrived: how streaming tests tell a body passed on as it comes from
 * one held back until it is whole.
 */
export interface TimedRead {
  readonly text: string
  /** The first chunk's text ('' for an empty body). */
  readonly firstChunk: string
  /** Milliseconds after `started` at which the first chunk (or the end of an empty body) arrived. */
  readonly firstAt: number
  /** Milliseconds after `started` at which the body ended. */
  readonly endAt: number
}

export async function readTimed(response: Response, started: number): Promise<TimedRead> {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let firstChunk: string | undefined
  let firstAt: number | undefined
  for (;;) {
    const { done, value } = await reader.read()
    firstAt ??= performance.now() - started
    if (done) break
    const chunk = decoder.decode(value, { stream: true })
    firstChunk ??= chunk
    text += chunk
  }
  text += decoder.decode()
  return { text, firstChunk: firstChunk ?? '', firstAt, endAt: performance.now() - started }
}
