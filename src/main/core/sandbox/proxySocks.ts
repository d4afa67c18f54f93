// The SOCKS5 side of the sandbox proxy's protocol, parsed (pure): the greeting, the request with its IPv4, IPv6 or
// name destination, and the replies (RFC 1928).
import type { Destination } from './proxyHttp.js';

export type SocksGreeting = { state: 'more' } | { state: 'bad' } | { state: 'ok'; noAuth: boolean; length: number };

/** A SOCKS5 greeting: version 5, the methods offered. */
export function parseSocksGreeting(buf: Buffer): SocksGreeting {
  if (buf.length < 2) return buf.length === 1 && buf[0] !== 5 ? { state: 'bad' } : { state: 'more' };
  const n = buf[1] ?? 0;
  if (buf[0] !== 5 || n === 0) return { state: 'bad' };
  if (buf.length < 2 + n) return { state: 'more' };
  return { state: 'ok', noAuth: buf.subarray(2, 2 + n).includes(0), length: 2 + n };
}

/** SOCKS5 reply codes (RFC 1928 §6). */
export const SOCKS = {
  succeeded: 0x00,
  generalFailure: 0x01,
  notAllowed: 0x02,
  networkUnreachable: 0x03,
  hostUnreachable: 0x04,
  connectionRefused: 0x05,
  commandNotSupported: 0x07,
  addressTypeNotSupported: 0x08,
} as const;

export type SocksRequest =
  | { state: 'more' }
  | { state: 'bad'; reply: number }
  | { state: 'ok'; command: number; dest: Destination; length: number };

/** A SOCKS5 request: command, address (IPv4, domain or IPv6) and port. */
export function parseSocksRequest(buf: Buffer): SocksRequest {
  if (buf.length < 5) return { state: 'more' };
  if (buf[0] !== 5 || buf[2] !== 0) return { state: 'bad', reply: SOCKS.generalFailure };
  const atyp = buf[3];
  const nameLength = buf[4] ?? 0;
  const addrLength = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 ? 1 + nameLength : -1;
  if (addrLength < 0) return { state: 'bad', reply: SOCKS.addressTypeNotSupported };
  if (atyp === 3 && nameLength === 0) return { state: 'bad', reply: SOCKS.generalFailure };
  const length = 4 + addrLength + 2;
  if (buf.length < length) return { state: 'more' };
  const addr = buf.subarray(4, 4 + addrLength);
  const host = atyp === 1 ? addr.join('.') : atyp === 4 ? formatIpv6(addr) : addr.subarray(1).toString('latin1');
  return { state: 'ok', command: buf[1] ?? 0, dest: { host, port: buf.readUInt16BE(4 + addrLength) }, length };
}

/** 16 bytes as an IPv6 address, its longest run of zero groups written `::`. */
export function formatIpv6(bytes: Uint8Array): string {
  const groups = Array.from({ length: 8 }, (_, i) =>
    (((bytes[2 * i] ?? 0) << 8) | (bytes[2 * i + 1] ?? 0)).toString(16),
  );
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

export function socksReply(code: number): Buffer {
  return Buffer.from([5, code, 0, 1, 0, 0, 0, 0, 0, 0]);
}
