/**
 * Bodies in a capture detail are base64 (docs/reference/api.md "Conventions").
 * These helpers turn them into bytes, then into text when the bytes are valid
 * UTF-8 and look like text, or into a hex dump when they do not.
 */

/** `Uint8Array.fromBase64` (TC39, in current browsers and Bun): native and fast. */
type FromBase64 = (text: string, options?: { alphabet?: 'base64' | 'base64url' }) => Uint8Array
const nativeFromBase64 = (Uint8Array as unknown as { fromBase64?: FromBase64 }).fromBase64

/** Decodes standard or URL-safe base64, padding optional; throws on bad input. */
export function base64ToBytes(b64: string): Uint8Array {
  if (nativeFromBase64) {
    const urlSafe = b64.includes('-') || b64.includes('_')
    try {
      return nativeFromBase64(b64, { alphabet: urlSafe ? 'base64url' : 'base64' })
    } catch {
      throw new Error('not valid base64')
    }
  }
  const clean = b64.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/')
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw new Error('not valid base64')
  }
  const padded = clean.padEnd(Math.ceil(clean.length / 4) * 4, '=')
  const binary = atob(padded)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = ''
  const CHUNK = 0x8000
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(i, i + CHUNK))
  }
  return btoa(binary)
}

/**
 * UTF-8 text, or `undefined` when the bytes are not valid UTF-8 or hold
 * control characters other than tab, newline, carriage return and form feed
 * (a NUL in "text" means binary, whatever the decoder says).
 */
export function bytesToText(bytes: Uint8Array): string | undefined {
  // Checked on the bytes, before decoding: a tight loop, no 1 MB regex.
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number
    if ((b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d) || b === 0x7f) return undefined
  }
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * A classic hex dump: offset, 16 bytes in hex, then printable ASCII.
 * `maxBytes` bounds the work for large bodies; the caller says what was cut.
 */
export function hexDump(bytes: Uint8Array, maxBytes = bytes.length): string {
  const end = Math.min(bytes.length, maxBytes)
  const lines: string[] = []
  for (let off = 0; off < end; off += 16) {
    const row = bytes.subarray(off, Math.min(off + 16, end))
    let hex = ''
    let ascii = ''
    for (let i = 0; i < 16; i++) {
      const b = row[i]
      hex += b === undefined ? '   ' : b.toString(16).padStart(2, '0') + ' '
      if (i === 7) hex += ' '
      if (b !== undefined) ascii += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.'
    }
    lines.push(`${off.toString(16).padStart(8, '0')}  ${hex} |${ascii}|`)
  }
  return lines.join('\n')
}
