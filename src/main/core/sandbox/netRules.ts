// Which destinations a sandbox's traffic may reach (pure): the Core's proxy asks it once per connection, with the
// address the name resolved to, so a name that resolves to this machine is judged as this machine.
import { isIP } from 'node:net';

/** A sandbox's network rules, from its setting: `allowHosts` absent means any public host. */
export interface NetRules {
  /** `example.com` (that name), `*.example.com` (its subdomains, not the apex) or an address (asked for directly). */
  allowHosts?: readonly string[];
  /** This machine's loopback ports the sandbox may reach (a dev database on 5432). */
  allowLocalPorts: readonly number[];
}

export type Verdict = { ok: true } | { ok: false; why: string };

/**
 * What an address is, from the sandbox's point of view. `loopback`, `unspecified` and `host` (one of this machine's
 * own addresses) all reach this machine; `private` is a LAN or ULA address; `reserved` is 240.0.0.0/4.
 */
export type AddressKind =
  | 'loopback'
  | 'unspecified'
  | 'host'
  | 'link-local'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'private'
  | 'public';

/** The kinds that are this machine: reachable only on `allowLocalPorts`, and then always at 127.0.0.1. */
export const THIS_MACHINE: ReadonlySet<AddressKind> = new Set(['loopback', 'unspecified', 'host']);

/** An address's text without `[…]` around an IPv6 literal nor its `%zone`. */
function bare(text: string): string {
  const unbracketed = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = unbracketed.indexOf('%');
  return zone >= 0 ? unbracketed.slice(0, zone) : unbracketed;
}

/**
 * An IP address as its bytes: 4 for IPv4, 16 for IPv6, an IPv4 address inside IPv6 (`::ffff:127.0.0.1`,
 * `::ffff:7f00:1`) as its 4 bytes, so every spelling of one address compares equal. Undefined when the text is not an
 * address in standard notation (`127.1` is a name here; the resolver turns it into an address, which is judged).
 */
export function parseIp(text: string): Uint8Array | undefined {
  const t = bare(text);
  const family = isIP(t);
  if (family === 4) return Uint8Array.from(t.split('.').map(Number));
  if (family !== 6) return undefined;
  let head = t;
  let v4: number[] = [];
  const lastColon = t.lastIndexOf(':');
  if (t.includes('.', lastColon)) {
    v4 = t
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    head = `${t.slice(0, lastColon + 1)}0:0`; // the dotted tail stands for two groups, filled in below
  }
  const [left = '', right] = head.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').map((g) => Number.parseInt(g, 16)));
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const all = [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  if (v4.length === 4) bytes.set(v4, 12);
  return embeddedV4(bytes) ?? bytes;
}

/**
 * The IPv4 address an IPv6 address carries, judged as that IPv4 address: mapped (::ffff:0:0/96), compatible (::/96,
 * deprecated but still parsed by some stacks) and NAT64's well-known prefix (64:ff9b::/96). `::` and `::1` are IPv6's
 * own.
 */
function embeddedV4(b: Uint8Array): Uint8Array | undefined {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const tail = b.slice(12);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return tail;
  if (zeros(0, 12) && !zeros(12, 15)) return tail; // not :: nor ::1 (their first 15 bytes are all zero)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12)) return tail;
  return undefined;
}

/** Whether `b` lies in `prefix/bits` (prefix given as bytes of the same family). */
function inPrefix(b: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const mask = bits - i >= 8 ? 0xff : (0xff << (8 - (bits - i))) & 0xff;
    if (((b[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

const V4_KINDS: readonly [readonly number[], number, AddressKind][] = [
  [[0], 8, 'unspecified'], // 0.0.0.0/8: connecting to 0.0.0.0 reaches this machine on Linux
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'], // cloud metadata (169.254.169.254) answers here
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
  [[10], 8, 'private'],
  [[172, 16], 12, 'private'],
  [[192, 168], 16, 'private'],
  [[100, 64], 10, 'private'], // carrier-grade NAT, often a VPN's range
];
const V6_KINDS: readonly [readonly number[], number, AddressKind][] = [
  [[], 128, 'unspecified'],
  [[...new Array<number>(15).fill(0), 1], 128, 'loopback'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xff], 8, 'multicast'],
  [[0xfc], 7, 'private'], // unique local addresses
  [[0xfe, 0xc0], 10, 'private'], // site-local (deprecated)
];

/** What `address` is; `hostAddresses` are this machine's own (os.networkInterfaces()). Undefined: not an address. */
export function addressKind(address: string, hostAddresses: readonly string[]): AddressKind | undefined {
  const b = parseIp(address);
  if (!b) return undefined;
  const table = b.length === 4 ? V4_KINDS : V6_KINDS;
  const first = table.find(([prefix, bits]) => inPrefix(b, prefix, bits));
  if (first && (first[2] === 'unspecified' || first[2] === 'loopback')) return first[2];
  if (hostAddresses.some((h) => sameIp(parseIp(h), b))) return 'host';
  return first?.[2] ?? 'public';
}

function sameIp(a: Uint8Array | undefined, b: Uint8Array): boolean {
  return a !== undefined && a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A name lower-cased and without its trailing dot (`Example.COM.` is `example.com`). */
function canonicalName(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/**
 * Whether the host asked for matches one `allow_hosts` entry. A name matches a name entry exactly; `*.example.com`
 * matches its subdomains at any depth (`a.example.com`, `a.b.example.com`) but not `example.com` itself (list both
 * for both); an address entry matches only that address asked for directly, never a name that resolves to it.
 */
export function hostMatches(host: string, entry: string): boolean {
  const entryIp = parseIp(entry);
  const hostIp = parseIp(host);
  if (entryIp || hostIp) return entryIp !== undefined && hostIp !== undefined && sameIp(entryIp, hostIp);
  const h = canonicalName(host);
  const e = canonicalName(entry);
  if (e.startsWith('*.')) return h.endsWith(e.slice(1)) && h.length > e.length - 1;
  return h === e;
}

/** The why of a refusal for each kind that is never reachable, whatever the rules say. */
const NEVER: Partial<Record<AddressKind, string>> = {
  'link-local': 'a link-local address (where cloud metadata answers); never reachable from a sandbox',
  multicast: 'a multicast address; never reachable from a sandbox',
  broadcast: 'the broadcast address; never reachable from a sandbox',
  reserved: 'a reserved address (240.0.0.0/4); never reachable from a sandbox',
};

const PRIVATE =
  "a private network address; reachable only when sandbox.allow_hosts lists it (with '*' among them, any public " +
  'host stays allowed too)';

/**
 * May a sandbox connect to `dest` (as asked: a name or an address), which resolved to `address`? This machine
 * (loopback, unspecified, or one of `hostAddresses`) only on `allowLocalPorts`; link-local, multicast, broadcast and
 * reserved never; a private address only when `allowHosts` names the host; otherwise any public host, or with
 * `allowHosts` only the hosts it matches (and any public one where it holds `*`).
 */
export function destinationVerdict(
  dest: { host: string; port: number },
  address: string,
  rules: NetRules,
  hostAddresses: readonly string[],
): Verdict {
  const { host, port } = dest;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return { ok: false, why: `port ${port} is not a port` };
  const kind = addressKind(address, hostAddresses);
  if (!kind) return { ok: false, why: `${address} is not an address` };
  const askedIp = parseIp(host) !== undefined;
  const resolved = askedIp ? '' : `resolves to ${address}, `;
  if (THIS_MACHINE.has(kind)) {
    if (rules.allowLocalPorts.includes(port)) return { ok: true };
    const what = kind === 'host' ? "this machine's own address" : "this machine's loopback";
    return { ok: false, why: `${resolved}${what}; add ${port} to sandbox.allow_local_ports` };
  }
  const never = NEVER[kind];
  if (never) return { ok: false, why: `${resolved}${never}` };
  const allow = rules.allowHosts;
  if (!allow) {
    if (kind === 'public') return { ok: true };
    return { ok: false, why: `${resolved}${PRIVATE}` };
  }
  if (allow.some((entry) => hostMatches(host, entry))) return { ok: true };
  // '*' keeps every public host allowed beside the private ones listed.
  if (kind === 'public' && allow.includes('*')) return { ok: true };
  return {
    ok: false,
    why: askedIp ? 'an address asked for directly must be listed in sandbox.allow_hosts' : 'not in sandbox.allow_hosts',
  };
}
