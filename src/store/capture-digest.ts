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
  const hasher = new Bun.CryptoHasher('sha256')
  const text = (value: string) => field(hasher, encoder.encode(value))
  text(capture.method)
  text(capture.path)
  text(capture.raw_query)
  text(headerText(capture.headers))
  field(hasher, capture.body)
  text(instant(capture.created_at))
  for (const response of [capture.live_response, capture.shadow_response]) responseFields(response, text, hasher)
  if (capture.noise_check !== undefined) {
    text('live_repeat_response')
    responseFields(capture.noise_check.repeat, text, hasher)
  }
  return hasher.digest() as Uint8Array
}

const encoder = new TextEncoder()

function responseFields(response: ResponseInput, text: (value: string) => void, hasher: Bun.CryptoHasher): void {
  text(String(response.status_code))
  text(headerText(response.headers))
  field(hasher, response.body)
  text(String(response.latency_ms))
  text(instant(response.created_at))
}

/** Each field length-prefixed, so that no two captures run their fields together into the same bytes. */
function field(hasher: Bun.CryptoHasher, bytes: Uint8Array): void {
  const length = new Uint8Array(8)
  new DataView(length.buffer).setBigUint64(0, BigInt(bytes.byteLength))
  hasher.update(length)
  hasher.update(bytes)
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
