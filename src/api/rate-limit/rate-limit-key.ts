import type { IpAddress } from '../../net/ip-address.ts'

/**
 * The bucket a client address is counted in. An IPv4 address is its own
 * bucket; an IPv6 address is counted by its /64, the smallest prefix a
 * site is normally given (RFC 6177), so a client cannot take a fresh bucket
 * by rotating through the addresses of its own network (RFC 8981 temporary
 * addresses do exactly that).
 */
export function rateLimitKey(ip: IpAddress): string {
  if (ip.family === 4) return ip.bytes.join('.')
  const groups: string[] = []
  for (let i = 0; i < 8; i += 2) groups.push(((ip.bytes[i]! << 8) | ip.bytes[i + 1]!).toString(16))
  return `${groups.join(':')}::/64`
}
