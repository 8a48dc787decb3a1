import { createHash } from 'node:crypto'
import type { SignatureContent } from './signature.ts'

/** Hex characters of an id: 64 bits, so that a gate's signatures practically never collide. */
export const SIGNATURE_ID_LENGTH = 16

/**
 * The id of a signature: the first 16 hex characters of the SHA-256 of its
 * canonical text (docs/insights.md "Signature ids"). SHA-256 and the
 * canonical text are the same everywhere, so the API, a standalone proxy
 * and the module agree on the id of one kind of difference. `ops` must
 * already be sorted and free of duplicates, as signature-of.ts builds them.
 */
export function signatureId(content: SignatureContent): string {
  return createHash('sha256')
    .update(canonicalSignature(content))
    .digest('hex')
    .slice(0, SIGNATURE_ID_LENGTH)
}

/**
 * The canonical text of a signature: a JSON array starting with a format
 * version, so that a later change of what a signature holds cannot give an
 * old id a new meaning.
 */
export function canonicalSignature(content: SignatureContent): string {
  const head = [FORMAT, content.method, content.template]
  if (content.overflow) return JSON.stringify([...head, 'other', content.kind])
  if (content.kind === 'error') {
    return JSON.stringify([...head, 'error', content.liveError, content.shadowError])
  }
  const ops: string[] = []
  for (const { op, path } of content.ops) ops.push(op, path)
  return JSON.stringify([...head, 'diff', content.truncated, ops])
}

const FORMAT = 'signature/1'
