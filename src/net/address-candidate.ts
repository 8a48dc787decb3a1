import { parseIp, type IpAddress } from './ip-address.ts'

/**
 * An address as proxies write it in X-Forwarded-For or X-Real-IP, to the bare
 * IP it names: `203.0.113.7:51234` and `[2001:db8::1]:443` lose their port
 * (a client picks its source port freely, so a port must never tell two
 * clients apart), brackets go, and anything that is not an IP address is
 * undefined. IPv4-mapped IPv6 is folded to IPv4 by parseIp.
 */
export function parseAddressCandidate(text: string): IpAddress | undefined {
  const value = text.trim()
  if (value.startsWith('[')) {
    const close = value.indexOf(']')
    if (close < 0) return undefined
    const rest = value.slice(close + 1)
    if (rest !== '' && !PORT_SUFFIX.test(rest)) return undefined
    return parseIp(value.slice(1, close))
  }
  const v4WithPort = V4_WITH_PORT.exec(value)
  return parseIp(v4WithPort ? v4WithPort[1]! : value)
}

const PORT_SUFFIX = /^:\d{1,5}$/
/** Only a dotted IPv4 address can carry a port without brackets (RFC 3986 section 3.2.2). */
const V4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/
