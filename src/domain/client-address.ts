// Which bucket a client address counts in. IPv6 clients are counted per /64, the block one
// subscriber usually holds (ISPs hand out /64 or shorter), so rotating the low 64 bits buys no
// extra tries; IPv4-mapped IPv6 addresses count as their IPv4 address.
import ipaddr from 'ipaddr.js';

export function addressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${address.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
