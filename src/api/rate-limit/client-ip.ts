import type { CidrSet } from '../../net/cidr.ts'

/**
 * The client a request is rate limited as (SPEC.md "Client IP for rate
 * limiting"): X-Forwarded-For counts only when the peer is a trusted proxy;
 * then the right-most hop that is not itself trusted; failing that
 * X-Real-IP, then the peer.
 */
export function clientIp(peer: string, headers: Headers, trusted: CidrSet): string {
  if (!trusted.has(peer)) return peer
  const forwarded = headers.get('x-forwarded-for')
  if (forwarded) {
    const hops = forwarded.split(',').map((hop) => hop.trim()).filter((hop) => hop !== '')
    for (let i = hops.length - 1; i >= 0; i--) {
      if (!trusted.has(hops[i])) return hops[i]!
    }
  }
  const realIp = headers.get('x-real-ip')?.trim()
  return realIp || peer
}
