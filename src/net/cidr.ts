import { parseIp, type IpAddress } from './ip-address.ts'

/** A network in CIDR notation; a bare address is a /32 or /128 network. */
export interface Cidr {
  readonly network: IpAddress
  readonly prefix: number
}

export function parseCidr(text: string): Cidr | undefined {
  const [address, prefixText, extra] = text.trim().split('/')
  if (extra !== undefined || address === undefined) return undefined
  const network = parseIp(address)
  if (!network) return undefined
  const bits = network.bytes.length * 8
  if (prefixText === undefined) return { network, prefix: bits }
  if (!/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = Number(prefixText)
  // `::ffff:10.0.0.0/104` was parsed to IPv4; its prefix shrinks with it.
  const adjusted = network.family === 4 && address.includes(':') ? prefix - 96 : prefix
  if (adjusted < 0 || adjusted > bits) return undefined
  return { network, prefix: adjusted }
}

export function cidrContains(cidr: Cidr, ip: IpAddress): boolean {
  if (cidr.network.family !== ip.family) return false
  const full = cidr.prefix >> 3
  for (let i = 0; i < full; i++) if (cidr.network.bytes[i] !== ip.bytes[i]) return false
  const rest = cidr.prefix & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (cidr.network.bytes[full]! & mask) === (ip.bytes[full]! & mask)
}

/** A set of networks compiled once; `has(ip)` is false for unparsable input. */
export class CidrSet {
  constructor(readonly cidrs: readonly Cidr[]) {}

  get size(): number {
    return this.cidrs.length
  }

  has(ipText: string | undefined): boolean {
    if (!ipText || this.cidrs.length === 0) return false
    const ip = parseIp(ipText)
    return ip !== undefined && this.contains(ip)
  }

  contains(ip: IpAddress): boolean {
    return this.cidrs.some((cidr) => cidrContains(cidr, ip))
  }
}
