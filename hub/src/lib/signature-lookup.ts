import type { ApiClient } from './api-client.ts'
import { isAbortError } from './api-error.ts'
import { DEFAULT_REQUEST_QUERY } from './query-string.ts'
import type { RequestDetail, SignatureStats } from './types.ts'

/** What the request page says about a capture's signature. */
export interface SignatureFacts {
  /** The signature as the API lists it; undefined when it could not be found. */
  readonly signature: SignatureStats | undefined
  /** Other captures of the gate with the same signature. */
  readonly others: number
}

/** Either side of the capture's time that the signature is looked for in. */
const AROUND_MS = 60_000
/** Signatures of one endpoint within two minutes: more than this is not worth a second page. */
const LOOKUP_LIMIT = 100

/**
 * The facts about a capture's signature: how many other captures share it
 * (listRequests filtered by the signature, one row asked for, the total
 * read), and the signature itself, for its summary. The signatures read
 * has no filter by id, so the signature is looked for among those of the
 * capture's endpoint in the minutes around it, where it is sure to count.
 * Not finding it (a gate with very many kinds of difference at that
 * moment) only costs the summary: a failed lookup is not an error.
 */
export async function loadSignatureFacts(
  api: ApiClient,
  gateId: string,
  detail: Pick<RequestDetail, 'signature_id' | 'created_at' | 'method' | 'template'>,
  signal: AbortSignal,
): Promise<SignatureFacts | undefined> {
  const id = detail.signature_id
  if (!id) return undefined
  const [sharing, signature] = await Promise.all([
    api.listRequests(gateId, { ...DEFAULT_REQUEST_QUERY, signature: id, limit: 1 }, signal),
    findSignature(api, gateId, id, detail, signal),
  ])
  return { signature, others: Math.max(0, sharing.pagination.total - 1) }
}

/** The signature among those of the capture's endpoint around its time; undefined when not found. */
async function findSignature(
  api: ApiClient,
  gateId: string,
  id: string,
  detail: Pick<RequestDetail, 'created_at' | 'method' | 'template'>,
  signal: AbortSignal,
): Promise<SignatureStats | undefined> {
  // Stored before endpoints existed and not yet backfilled: no endpoint to look in.
  if (detail.template === null) return undefined
  const at = Date.parse(detail.created_at)
  try {
    const page = await api.listSignatures(
      gateId,
      {
        from: new Date(at - AROUND_MS).toISOString(),
        to: new Date(at + AROUND_MS).toISOString(),
        method: detail.method,
        template: detail.template,
        sort: 'count',
        order: 'desc',
        offset: 0,
        limit: LOOKUP_LIMIT,
      },
      signal,
    )
    return page.items.find((s) => s.id === id)
  } catch (error) {
    if (isAbortError(error)) throw error
    return undefined
  }
}
