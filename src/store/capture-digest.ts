import type { CaptureInput, HeaderMap, ResponseInput } from './rows.ts'
import { storableJson } from './rows.ts'

/**
 * The content hash of a capture (docs/storage.md "Ingest", capture identity):
 * what decides whether a submission with a known id is a retry of the stored
 * capture (201, the stored summary) or another capture under a reused id (409).
 * SHA-256 over what is stored, as stored (redacted, headers as jsonb keeps
 * them):
 *
 * - method, path, raw_query, request headers and body, created_at;
 * - for live and shadow: status_code, headers, body, latency_ms, created_at;
 * - live's second answer of a noise check, when there is one, likewise
 *   (after a marker, so a capture without one hashes as it always did).
 *
 * Left out: the ids (a retry may omit a response id, which the API then
 * generates) and the diff and noise patch (derived from the rest, and
 * recomputed when the gate's diff_config changes between two tries).
 * Timestamps count as instants to the microsecond, the database's
 * precision, so `…Z` and `…+00:00` are the same. Header maps count with
 * their names in order of appearance, as the database keeps them.
 *
 * Hashing the redacted capture means no secret goes into the hash; two
 * submissions that differ only in a redacted value store the same row and
 * count as the same.
 */
export function captureDigest(capture: CaptureInput): Uint8Array {
  const fields = new FieldHasher()
  fields.text(capture.method)
  fields.text(capture.path)
  fields.text(capture.raw_query)
  fields.text(headerText(capture.headers))
  fields.bytes(capture.body)
  fields.text(instant(capture.created_at))
  responseFields(fields, capture.live_response)
  responseFields(fields, capture.shadow_response)
  if (capture.noise_check !== undefined) {
    fields.text('live_repeat_response')
    responseFields(fields, capture.noise_check.repeat)
  }
  return fields.digest()
}

function responseFields(fields: FieldHasher, response: ResponseInput): void {
  fields.text(String(response.status_code))
  fields.text(headerText(response.headers))
  fields.bytes(response.body)
  fields.text(String(response.latency_ms))
  fields.text(instant(response.created_at))
}

/** Bytes of small fields gathered before they go to the hasher; reused, as a digest is computed in one go. */
const pending = Buffer.allocUnsafe(4096)

/**
 * SHA-256 over a sequence of fields, each length-prefixed (8 bytes,
 * big-endian), so that no two captures run their fields together into the
 * same bytes; text as UTF-8. The short fields are gathered into one
 * buffer and hashed together, which gives the same digest as hashing each
 * piece on its own and saves a native call and two allocations per piece.
 */
class FieldHasher {
  private readonly hasher = new Bun.CryptoHasher('sha256')
  private used = 0

  text(value: string): void {
    const length = Buffer.byteLength(value, 'utf8')
    if (this.used + 8 + length > pending.length) this.flush()
    if (8 + length > pending.length) {
      this.bytes(Buffer.from(value, 'utf8'))
      return
    }
    this.length(length)
    this.used += pending.write(value, this.used, length, 'utf8')
  }

  bytes(value: Uint8Array): void {
    if (this.used + 8 > pending.length) this.flush()
    this.length(value.byteLength)
    this.flush()
    this.hasher.update(value)
  }

  digest(): Uint8Array {
    this.flush()
    return this.hasher.digest() as Uint8Array
  }

  private length(length: number): void {
    pending.writeUInt32BE(Math.floor(length / 2 ** 32), this.used)
    pending.writeUInt32BE(length >>> 0, this.used + 4)
    this.used += 8
  }

  private flush(): void {
    if (this.used > 0) this.hasher.update(pending.subarray(0, this.used))
    this.used = 0
  }
}

function headerText(headers: HeaderMap): string {
  return JSON.stringify(storableJson(headers))
}

const FRACTION = /\.(\d+)/

/**
 * An RFC 3339 timestamp (already validated) or a Date as microseconds
 * since the epoch: the digits after the millisecond are kept, up to the
 * microsecond.
 */
function instant(value: Date | string): string {
  if (value instanceof Date) return `${value.getTime()}000`
  const ms = Date.parse(value.replace(' ', 'T'))
  const micros = (FRACTION.exec(value)?.[1] ?? '').slice(3, 6).padEnd(3, '0')
  return `${ms}${micros}`
}
