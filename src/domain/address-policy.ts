// Which IP addresses a webhook (or a push service) may be reached at (PRODUCT.md §5). Pure: no DNS, no sockets.
// Callers check every address a host resolves to, right before connecting to it, so a name that
// resolves to a public address at creation and to 127.0.0.1 later (DNS rebinding) is still refused.
//
// Three outcomes:
//   - public: always allowed;
//   - "private" kinds (loopback, RFC 1918, link-local, unique-local, CGNAT, …): allowed only when
//     the operator allows private targets for this endpoint's mode (docs/decisions/0005);
//   - kinds that are never a receiver (unspecified, multicast, broadcast, reserved, documentation,
//     benchmarking): always refused.
import { isIP } from 'node:net';

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'cgnat'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'documentation'
  | 'benchmarking'
  | 'invalid';

const PRIVATE_KINDS: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'link-local', 'unique-local', 'site-local', 'cgnat']);

export type AddressVerdict = { allowed: boolean; kind: AddressKind; reason: string };

const DESCRIPTION: Record<AddressKind, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  private: 'a private network address',
  'link-local': 'a link-local address (such as a cloud metadata service)',
  'unique-local': 'an IPv6 unique-local address',
  'site-local': 'an IPv6 site-local address',
  cgnat: 'a carrier-grade NAT address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
  documentation: 'a documentation-only address',
  benchmarking: 'a benchmarking-only address',
  invalid: 'not an IP address',
};

export function isAddressAllowed(address: string, opts: { allowPrivate: boolean }): AddressVerdict {
  const kind = classifyAddress(address);
  const allowed = kind === 'public' || (opts.allowPrivate && PRIVATE_KINDS.has(kind));
  return { allowed, kind, reason: `${address} is ${DESCRIPTION[kind]}` };
}

/** What kind of address this is. Accepts IPv4 dotted quads and IPv6 (with or without brackets or a zone). */
export function classifyAddress(address: string): AddressKind {
  let a = address.trim();
  if (a.startsWith('[') && a.endsWith(']')) a = a.slice(1, -1);
  const zone = a.indexOf('%');
  // A zone id only means something for link-local addresses; the address part decides.
  if (zone !== -1) a = a.slice(0, zone);
  const family = isIP(a);
  if (family === 4) return classifyV4(parseV4(a));
  if (family === 6) return classifyV6(parseV6(a));
  return 'invalid';
}

function parseV4(a: string): number {
  const [p0, p1, p2, p3] = a.split('.').map(Number) as [number, number, number, number];
  return ((p0 << 24) >>> 0) + (p1 << 16) + (p2 << 8) + p3;
}

type V4Range = { base: number; bits: number; kind: AddressKind };
const v4 = (cidr: string, kind: AddressKind): V4Range => {
  const [ip, bits] = cidr.split('/') as [string, string];
  return { base: parseV4(ip), bits: Number(bits), kind };
};

// Most specific first where ranges nest (192.0.0.0/24 holds nothing else here, but order is kept
// explicit so a future addition cannot be shadowed by accident).
const V4_RANGES: readonly V4Range[] = [
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

function inV4(ip: number, r: V4Range): boolean {
  if (r.bits === 0) return true;
  const mask = r.bits === 32 ? 0xffffffff : ~((1 << (32 - r.bits)) - 1) >>> 0;
  return (ip & mask) >>> 0 === (r.base & mask) >>> 0;
}

function classifyV4(ip: number): AddressKind {
  for (const r of V4_RANGES) if (inV4(ip, r)) return r.kind;
  return 'public';
}

/** Eight 16-bit groups. Handles `::` and a trailing dotted quad (`::ffff:1.2.3.4`). */
function parseV6(a: string): number[] {
  let text = a.toLowerCase();
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const n = parseV4(last);
    text = `${text.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const hex = (s: string): number[] => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const gap = text.indexOf('::');
  if (gap === -1) return hex(text);
  const left = hex(text.slice(0, gap));
  const right = hex(text.slice(gap + 2));
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function embeddedV4(g: number[], from: number): AddressKind {
  return classifyV4((((g[from]! << 16) >>> 0) + g[from + 1]!) >>> 0);
}

function classifyV6(g: number[]): AddressKind {
  const zeroPrefix = (n: number): boolean => g.slice(0, n).every((x) => x === 0);
  if (g.every((x) => x === 0)) return 'unspecified';
  if (zeroPrefix(7) && g[7] === 1) return 'loopback';
  // IPv4-mapped (::ffff:a.b.c.d) and the deprecated IPv4-compatible (::a.b.c.d) form: the socket
  // would reach the IPv4 address, so the IPv4 rules decide.
  if (zeroPrefix(5) && g[5] === 0xffff) return embeddedV4(g, 6);
  if (zeroPrefix(6)) return embeddedV4(g, 6);
  // IPv4/IPv6 translation (::ffff:0:a.b.c.d) and NAT64 (64:ff9b::/96, 64:ff9b:1::/48) embed an
  // IPv4 address that a translator on the path would connect to.
  if (zeroPrefix(4) && g[4] === 0xffff && g[5] === 0) return embeddedV4(g, 6);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embeddedV4(g, 6);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'reserved';
  const first = g[0]!;
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if ((first & 0xffc0) === 0xfe80) return 'link-local';
  if ((first & 0xffc0) === 0xfec0) return 'site-local';
  if ((first & 0xfe00) === 0xfc00) return 'unique-local';
  // 6to4 (2002::/16) carries an IPv4 address in groups 1–2.
  if (first === 0x2002) return embeddedV4(g, 1);
  if (first === 0x2001 && g[1] === 0x0db8) return 'documentation';
  if (first === 0x3fff && (g[1]! & 0xf000) === 0) return 'documentation';
  // Teredo (2001::/32) tunnels to an obfuscated IPv4 address; ORCHID and other IETF special
  // blocks inside 2001::/23 are not receivers either.
  if (first === 0x2001 && g[1]! < 0x0200) return 'reserved';
  if (first === 0x0100 && g.slice(1, 4).every((x) => x === 0)) return 'reserved'; // discard-only 100::/64
  // Only 2000::/3 is allocated for global unicast; anything else is reserved.
  if ((first & 0xe000) !== 0x2000) return 'reserved';
  return 'public';
}
