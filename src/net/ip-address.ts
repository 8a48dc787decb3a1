/**
 * Textual IP addresses to bytes. IPv4-mapped IPv6 addresses
 * (`::ffff:10.0.0.1`, what a dual-stack socket reports for an IPv4 peer)
 * become plain IPv4, so a rule written for `10.0.0.0/8` matches them.
 */
export interface IpAddress {
  readonly family: 4 | 6
  readonly bytes: Uint8Array
}

export function parseIp(text: string): IpAddress | undefined {
  const value = text.trim()
  if (value.includes(':')) return parseIpv6(value)
  const v4 = parseIpv4(value)
  return v4 && { family: 4, bytes: v4 }
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  const bytes = new Uint8Array(4)
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!
    if (!/^\d{1,3}$/.test(part) || (part.length > 1 && part[0] === '0')) return undefined
    const n = Number(part)
    if (n > 255) return undefined
    bytes[i] = n
  }
  return bytes
}

function parseIpv6(text: string): IpAddress | undefined {
  // A zone index (`fe80::1%eth0`) does not take part in matching.
  const value = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  let tailV4: Uint8Array | undefined
  let head = value
  const lastColon = value.lastIndexOf(':')
  if (value.slice(lastColon + 1).includes('.')) {
    tailV4 = parseIpv4(value.slice(lastColon + 1))
    if (!tailV4) return undefined
    head = value.slice(0, lastColon + 1) + '0:0'
  }
  const halves = head.split('::')
  if (halves.length > 2) return undefined
  const left = halves[0] ? halves[0].split(':') : []
  const right = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const missing = 8 - left.length - right.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...left, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...right]
  const bytes = new Uint8Array(16)
  for (let i = 0; i < 8; i++) {
    const group = groups[i]!
    if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined
    const n = parseInt(group, 16)
    bytes[i * 2] = n >> 8
    bytes[i * 2 + 1] = n & 0xff
  }
  if (tailV4) bytes.set(tailV4, 12)
  if (isV4Mapped(bytes)) return { family: 4, bytes: bytes.slice(12) }
  return { family: 6, bytes }
}

function isV4Mapped(bytes: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (bytes[i] !== 0) return false
  return bytes[10] === 0xff && bytes[11] === 0xff
}
