// Which addresses a webhook may be sent to. Everything that is not plainly public unicast is refused: private
// networks, loopback, link-local, carrier-grade NAT, multicast, cloud metadata services, documentation and
// reserved ranges, in IPv4 and IPv6 (including IPv6 forms that carry an IPv4 address). Parsing is ipaddr.js's;
// what each range means for a webhook is ours.
import ipaddr from 'ipaddr.js';

export type AddressKind =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'unique_local'
  | 'link_local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'metadata'
  | 'documentation'
  | 'reserved'
  | 'invalid';

type Ranges<A extends ipaddr.IPv4 | ipaddr.IPv6> = Array<[kind: AddressKind, range: [A, number]]>;

const v4 = (kind: AddressKind, cidr: string): [AddressKind, [ipaddr.IPv4, number]] => [kind, ipaddr.IPv4.parseCIDR(cidr)];
const v6 = (kind: AddressKind, cidr: string): [AddressKind, [ipaddr.IPv6, number]] => [kind, ipaddr.IPv6.parseCIDR(cidr)];

// First match wins: the narrow metadata and broadcast entries sit before the ranges that contain them.
const IPV4_RANGES: Ranges<ipaddr.IPv4> = [
  v4('metadata', '169.254.169.254/32'), // AWS, GCP, Azure, OpenStack instance metadata
  v4('metadata', '168.63.129.16/32'), // Azure host services (a public-looking address)
  v4('metadata', '100.100.100.200/32'), // Alibaba Cloud metadata
  v4('broadcast', '255.255.255.255/32'),
  v4('unspecified', '0.0.0.0/8'),
  v4('private', '10.0.0.0/8'),
  v4('cgnat', '100.64.0.0/10'),
  v4('loopback', '127.0.0.0/8'),
  v4('link_local', '169.254.0.0/16'),
  v4('private', '172.16.0.0/12'),
  v4('reserved', '192.0.0.0/24'),
  v4('documentation', '192.0.2.0/24'),
  v4('reserved', '192.88.99.0/24'),
  v4('private', '192.168.0.0/16'),
  v4('reserved', '198.18.0.0/15'),
  v4('documentation', '198.51.100.0/24'),
  v4('documentation', '203.0.113.0/24'),
  v4('multicast', '224.0.0.0/4'),
  v4('reserved', '240.0.0.0/4'),
];

// Checked after the forms that carry an IPv4 address (mapped, NAT64, 6to4) and the unspecified and loopback ones.
const IPV6_RANGES: Ranges<ipaddr.IPv6> = [
  v6('reserved', '::/96'), // ::a.b.c.d, the deprecated IPv4-compatible form
  v6('metadata', 'fd00:ec2::254/128'), // AWS instance metadata over IPv6
  v6('multicast', 'ff00::/8'),
  v6('link_local', 'fe80::/10'),
  v6('private', 'fec0::/10'), // deprecated site-local
  v6('unique_local', 'fc00::/7'),
  v6('documentation', '2001:db8::/32'),
  v6('documentation', '3fff::/20'),
  v6('private', '64:ff9b:1::/48'), // local-use NAT64
  v6('reserved', '100::/64'), // discard-only
  v6('reserved', '2001::/23'), // IETF protocol assignments, Teredo, ORCHID, benchmarking
  v6('reserved', '5f00::/16'), // SRv6 SIDs
];
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const SIX_TO_FOUR = ipaddr.IPv6.parseCIDR('2002::/16');

function firstMatch<A extends ipaddr.IPv4 | ipaddr.IPv6>(address: A, ranges: Ranges<A>): AddressKind | undefined {
  return ranges.find(([, range]) => address.match(range))?.[0];
}

function classifyIPv4(address: ipaddr.IPv4): AddressKind {
  return firstMatch(address, IPV4_RANGES) ?? 'public';
}

/** The IPv4 address in two 16-bit parts of an IPv6 address. */
function embeddedIPv4(parts: number[], at: number): ipaddr.IPv4 {
  const [high, low] = [parts[at]!, parts[at + 1]!];
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function classifyIPv6(address: ipaddr.IPv6): AddressKind {
  const parts = address.parts;
  if (parts.every((part) => part === 0)) return 'unspecified';
  if (parts.slice(0, 7).every((part) => part === 0) && parts[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (address.isIPv4MappedAddress()) return classifyIPv4(address.toIPv4Address());
  if (address.match(NAT64)) return classifyIPv4(embeddedIPv4(parts, 6));
  // 2002:a.b.c.d::/48 (6to4) routes to the IPv4 address in bits 16-48.
  if (address.match(SIX_TO_FOUR)) {
    const kind = classifyIPv4(embeddedIPv4(parts, 1));
    return kind === 'public' ? 'reserved' : kind;
  }
  // Only global unicast (2000::/3) is public; everything outside it is unassigned or special.
  return firstMatch(address, IPV6_RANGES) ?? (address.match(GLOBAL_UNICAST) ? 'public' : 'reserved');
}

/** Dotted-quad IPv4 to an unsigned 32-bit number; null when it is not exactly four decimal octets. */
export function parseIPv4(text: string): number | null {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) || /(^|\.)0\d/.test(text)) return null;
  return ipaddr.IPv4.parse(text).octets.reduce((value, octet) => value * 256 + octet, 0);
}

function parseIPv6Address(text: string): ipaddr.IPv6 | null {
  // A zone ("fe80::1%eth0") names an interface, not an address: it must have a name, and it is not classified.
  if (text.endsWith('%')) return null;
  const [body, zone] = text.split(/%(.*)/s) as [string, string | undefined];
  const lastColon = body.lastIndexOf(':');
  const tail = body.slice(lastColon + 1);
  let hex = body;
  if (tail.includes('.')) {
    // An IPv4 tail must be four plain decimal octets, as a dotted quad must. It is rewritten as two hex groups
    // first: ipaddr.js reads "::a.b.c.d" as IPv4-mapped (::ffff:a.b.c.d), which would make "::8.8.8.8" public.
    const ipv4 = parseIPv4(tail);
    if (ipv4 === null) return null;
    hex = `${body.slice(0, lastColon + 1)}${Math.floor(ipv4 / 65536).toString(16)}:${(ipv4 % 65536).toString(16)}`;
  }
  const full = zone === undefined ? hex : `${hex}%${zone}`;
  return ipaddr.IPv6.isValid(full) ? ipaddr.IPv6.parse(full) : null;
}

/** IPv6 text (optionally with a zone and an IPv4 tail) to its eight 16-bit groups; null when malformed. */
export function parseIPv6(text: string): number[] | null {
  return parseIPv6Address(text)?.parts ?? null;
}

/** The kind of a literal IPv4 or IPv6 address ('invalid' when it is not one). Brackets around IPv6 are accepted. */
export function classifyAddress(address: string): AddressKind {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (text.includes(':')) {
    const parsed = parseIPv6Address(text);
    return parsed === null ? 'invalid' : classifyIPv6(parsed);
  }
  return parseIPv4(text) === null ? 'invalid' : classifyIPv4(ipaddr.IPv4.parse(text));
}

/** True for an address literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function isIpLiteral(host: string): boolean {
  return classifyAddress(host) !== 'invalid';
}
