// Which addresses a webhook may be sent to. Everything that is not plainly public unicast is refused: private
// networks, loopback, link-local, carrier-grade NAT, multicast, cloud metadata services, documentation and
// reserved ranges, in IPv4 and IPv6 (including IPv6 forms that carry an IPv4 address).

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

interface Range4 {
  base: number;
  bits: number;
  kind: AddressKind;
}

const v4 = (cidr: string, kind: AddressKind): Range4 => {
  const [address, bits] = cidr.split('/') as [string, string];
  return { base: parseIPv4(address)!, bits: Number(bits), kind };
};

// First match wins: the narrow metadata and broadcast entries sit before the ranges that contain them.
const IPV4_RANGES: Range4[] = [
  v4('169.254.169.254/32', 'metadata'), // AWS, GCP, Azure, OpenStack instance metadata
  v4('168.63.129.16/32', 'metadata'), // Azure host services (a public-looking address)
  v4('100.100.100.200/32', 'metadata'), // Alibaba Cloud metadata
  v4('255.255.255.255/32', 'broadcast'),
  v4('0.0.0.0/8', 'unspecified'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'cgnat'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link_local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.88.99.0/24', 'reserved'),
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

/** Dotted-quad IPv4 to an unsigned 32-bit number; null when it is not exactly four decimal octets. */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

function classifyIPv4Number(value: number): AddressKind {
  for (const range of IPV4_RANGES) {
    const size = 2 ** (32 - range.bits);
    if (value >= range.base && value < range.base + size) return range.kind;
  }
  return 'public';
}

/** IPv6 text (optionally with a zone and an IPv4 tail) to its eight 16-bit groups; null when malformed. */
export function parseIPv6(text: string): number[] | null {
  const zoneAt = text.indexOf('%');
  let body = zoneAt === -1 ? text : text.slice(0, zoneAt);
  if (zoneAt !== -1 && zoneAt === text.length - 1) return null;
  // An IPv4 tail ("::ffff:127.0.0.1") is rewritten as its two hex groups ("::ffff:7f00:1").
  const lastColon = body.lastIndexOf(':');
  if (lastColon !== -1 && body.slice(lastColon + 1).includes('.')) {
    const ipv4 = parseIPv4(body.slice(lastColon + 1));
    if (ipv4 === null) return null;
    body = `${body.slice(0, lastColon + 1)}${Math.floor(ipv4 / 65536).toString(16)}:${(ipv4 % 65536).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const groupsOf = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      groups.push(parseInt(group, 16));
    }
    return groups;
  };
  const head = groupsOf(halves[0]!);
  const rest = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length;
  if (halves.length === 1) return explicit === 8 ? head : null;
  if (explicit > 7) return null;
  return [...head, ...new Array<number>(8 - explicit).fill(0), ...rest];
}

const embeddedIPv4 = (groups: number[], at: number): number => groups[at]! * 65536 + groups[at + 1]!;

function inPrefix(groups: number[], prefix: number[], bits: number): boolean {
  let remaining = bits;
  for (let i = 0; remaining > 0; i += 1) {
    const take = Math.min(16, remaining);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((groups[i]! & mask) !== ((prefix[i] ?? 0) & mask)) return false;
    remaining -= take;
  }
  return true;
}

function classifyIPv6Groups(groups: number[]): AddressKind {
  const allZeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (allZeroUpTo(8)) return 'unspecified';
  if (allZeroUpTo(7) && groups[7] === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
  if (allZeroUpTo(5) && groups[5] === 0xffff) return classifyIPv4Number(embeddedIPv4(groups, 6));
  if (inPrefix(groups, [0x64, 0xff9b], 96)) return classifyIPv4Number(embeddedIPv4(groups, 6));
  // 2002:a.b.c.d::/48 (6to4) routes to the IPv4 address in bits 16-48.
  if (groups[0] === 0x2002) {
    const kind = classifyIPv4Number(embeddedIPv4(groups, 1));
    return kind === 'public' ? 'reserved' : kind;
  }
  if (allZeroUpTo(6)) return 'reserved'; // ::a.b.c.d, the deprecated IPv4-compatible form
  const awsMetadata = [0xfd00, 0x0ec2, 0, 0, 0, 0, 0, 0x0254];
  if (groups.every((g, i) => g === awsMetadata[i])) return 'metadata'; // AWS instance metadata over IPv6
  if (inPrefix(groups, [0xff00], 8)) return 'multicast';
  if (inPrefix(groups, [0xfe80], 10)) return 'link_local';
  if (inPrefix(groups, [0xfec0], 10)) return 'private'; // deprecated site-local
  if (inPrefix(groups, [0xfc00], 7)) return 'unique_local';
  if (inPrefix(groups, [0x2001, 0x0db8], 32)) return 'documentation';
  if (inPrefix(groups, [0x3fff], 20)) return 'documentation';
  if (inPrefix(groups, [0x0064, 0xff9b, 0x0001], 48)) return 'private'; // local-use NAT64
  if (inPrefix(groups, [0x0100], 64)) return 'reserved'; // discard-only
  if (inPrefix(groups, [0x2001], 23)) return 'reserved'; // IETF protocol assignments, Teredo, ORCHID, benchmarking
  if (inPrefix(groups, [0x5f00], 16)) return 'reserved'; // SRv6 SIDs
  // Only global unicast (2000::/3) is public; everything outside it is unassigned or special.
  if (!inPrefix(groups, [0x2000], 3)) return 'reserved';
  return 'public';
}

/** The kind of a literal IPv4 or IPv6 address ('invalid' when it is not one). Brackets around IPv6 are accepted. */
export function classifyAddress(address: string): AddressKind {
  const text = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (text.includes(':')) {
    const groups = parseIPv6(text);
    return groups === null ? 'invalid' : classifyIPv6Groups(groups);
  }
  const value = parseIPv4(text);
  return value === null ? 'invalid' : classifyIPv4Number(value);
}

/** True for an address literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function isIpLiteral(host: string): boolean {
  return classifyAddress(host) !== 'invalid';
}
