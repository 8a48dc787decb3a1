import { parseAddressCandidate } from '../../net/address-candidate.ts'
import type { CidrSet } from '../../net/cidr.ts'
import type { IpAddress } from '../../net/ip-address.ts'

/**
 * The client a request is rate limited as (README "Decisions", rate limiting):
 * X-Forwarded-For counts only when the peer is a trusted proxy; then the
 * right-most hop that is not itself trusted; failing that X-Real-IP, then
 * the peer. Every candidate is read as a bare IP (parseAddressCandidate);
 * one that is not an IP is skipped, so a mangled header cannot become a
 * bucket of its own. Undefined only when the peer itself is not an IP.
 */
export function clientIp(peer: string, headers: Headers, trusted: CidrSet): IpAddress | undefined {
  const peerIp = parseAddressCandidate(peer)
  if (!peerIp || !trusted.contains(peerIp)) return peerIp
  const forwarded = headers.get('x-forwarded-for')
  if (forwarded) {
    const hops = forwarded.split(',')
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = parseAddressCandidate(hops[i]!)
      if (hop && !trusted.contains(hop)) return hop
    }
  }
  const realIp = headers.get('x-real-ip')
  return (realIp !== null && parseAddressCandidate(realIp)) || peerIp
}
