import type { MessageBody } from './message-body.ts'
import { NOT_JSON } from './message-body.ts'
import type { Redaction } from './redaction.ts'

/** What is stored, and shown in a diff, of a body that did not parse as JSON. */
export type UnparsedBodyView =
  /** Stored as it came: text, HTML, an image. */
  | { readonly kind: 'as-is' }
  /** JSON after all, read leniently: stored as its redacted JSON when redaction changed it. */
  | { readonly kind: 'json'; readonly value: unknown; readonly changed: boolean }
  /** Not storable safely: `[REDACTED]`. */
  | { readonly kind: 'redacted' }

const views = new WeakMap<MessageBody, UnparsedBodyView>()

/**
 * A body whose json() is NOT_JSON, when body fields are redacted. Non-JSON
 * bodies are stored as they are (docs/diff.md "Redaction and what is
 * stored"), but a body meant as JSON must not keep its secrets because it
 * could not be read strictly (fail closed):
 *
 * - the whole body is a redacted field, or it was too deeply nested or too
 *   large to decode and scan: `[REDACTED]`;
 * - it parses as JSON read leniently (a stray non-UTF-8 byte, a wrong
 *   charset label, an unknown Content-Encoding over plain JSON): its
 *   redacted JSON;
 * - it could not be decoded (a truncated or corrupt gzip, deflate or br
 *   stream, a coding this reader does not know over bytes that are not
 *   JSON): `[REDACTED]`, since what it holds cannot be seen, and a partial
 *   decode of the stored bytes would show the very fields redaction is for;
 * - it still starts like JSON (`{`, `[`) but does not parse: `[REDACTED]`,
 *   since its fields cannot be told apart;
 * - anything else (text, HTML, binary): as it is.
 *
 * Decided once per body: storage and the diff must show the same thing.
 */
export function unparsedBodyView(body: MessageBody, redaction: Redaction): UnparsedBodyView {
  let view = views.get(body)
  if (view === undefined) {
    view = decide(body, redaction)
    views.set(body, view)
  }
  return view
}

function decide(body: MessageBody, redaction: Redaction): UnparsedBodyView {
  if (!redaction.redactsBody) return { kind: 'as-is' }
  if (redaction.redactsWholeBody || body.tooDeep || body.decodeTooLarge) return { kind: 'redacted' }
  const lenient = body.lenientJson()
  if (lenient !== NOT_JSON) {
    const { value, changed } = redaction.json(lenient)
    return { kind: 'json', value, changed }
  }
  if (body.undecodable) return { kind: 'redacted' }
  return body.looksLikeJson() ? { kind: 'redacted' } : { kind: 'as-is' }
}
