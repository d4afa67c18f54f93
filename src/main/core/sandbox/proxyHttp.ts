// The HTTP side of the sandbox proxy's protocol, parsed (pure): a request head, bounded; a CONNECT authority or an
// absolute-form target; and the origin-form request sent on in its place, hop-by-hop headers dropped.
import { isIP } from 'node:net';

/** The largest request head (or SOCKS5 handshake) read; more is refused (431). */
export const MAX_HEAD_BYTES = 32 * 1024;

export type Destination = { host: string; port: number };
export interface HttpHead {
  method: string;
  target: string;
  version: string;
  headers: [string, string][];
  /** Bytes of the head, its blank line included: what follows is the body. */
  length: number;
}
export type HeadParse =
  | { state: 'more' }
  | { state: 'bad'; status: number; why: string }
  | ({ state: 'ok' } & HttpHead);

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const REQUEST_LINE = new RegExp(`^(${TOKEN}) (\\S+) HTTP/(1\\.[01])$`);
const HEADER_LINE = new RegExp(`^(${TOKEN}):[ \\t]*(.*?)[ \\t]*$`);
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** An HTTP/1.x request head from the bytes received so far: more needed, malformed (with a status), or parsed. */
export function parseHttpHead(buf: Buffer, max = MAX_HEAD_BYTES): HeadParse {
  const bad = (status: number, why: string): HeadParse => ({ state: 'bad', status, why });
  const first = buf[0];
  if (first !== undefined && !/[A-Za-z]/.test(String.fromCharCode(first))) return bad(400, 'not an HTTP request');
  const end = buf.indexOf('\r\n\r\n');
  if ((end < 0 && buf.length > max) || end + 4 > max) return bad(431, `request head over ${max} bytes`);
  const lineEnd = buf.indexOf('\r\n');
  const requestLine = buf.subarray(0, lineEnd < 0 ? buf.length : lineEnd).toString('latin1');
  if (lineEnd >= 0 && !REQUEST_LINE.test(requestLine)) return bad(400, 'malformed request line');
  if (end < 0) return { state: 'more' };
  const [line = '', ...rest] = buf.subarray(0, end).toString('latin1').split('\r\n');
  const m = REQUEST_LINE.exec(line);
  if (!m) return bad(400, 'malformed request line');
  const headers: [string, string][] = [];
  for (const h of rest) {
    const hm = HEADER_LINE.exec(h);
    if (!hm || CONTROL.test(hm[2] ?? '')) return bad(400, 'malformed header line');
    headers.push([hm[1] ?? '', hm[2] ?? '']);
  }
  return { state: 'ok', method: m[1] ?? '', target: m[2] ?? '', version: m[3] ?? '', headers, length: end + 4 };
}

/** A host name as a resolver takes it (letters, digits, `-`, `_`, dots), or an IP address. */
const NAME = /^(?=.{1,254}$)[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?\.?$/;
export function validHost(host: string): boolean {
  return isIP(host) !== 0 || NAME.test(host);
}

/** `host:port` or `[v6]:port` (the port may be left out when `defaultPort` is given); undefined when malformed. */
export function parseAuthority(text: string, defaultPort?: number): Destination | undefined {
  let host = text;
  let portText: string | undefined;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    host = text.slice(1, close);
    const after = text.slice(close + 1);
    if (close < 0 || isIP(host) !== 6 || (after !== '' && !after.startsWith(':'))) return undefined;
    if (after !== '') portText = after.slice(1);
  } else {
    const colon = text.lastIndexOf(':');
    if (colon >= 0) {
      host = text.slice(0, colon);
      portText = text.slice(colon + 1);
    }
    if (host.includes(':') || !validHost(host)) return undefined; // an IPv6 address needs its brackets here
  }
  if (portText === undefined) return defaultPort === undefined ? undefined : { host, port: defaultPort };
  if (!/^[0-9]{1,5}$/.test(portText)) return undefined;
  const port = Number(portText);
  return port >= 1 && port <= 65_535 ? { host, port } : undefined;
}

/** An absolute-form target (`http://host[:port]/path?q`): where to connect, the Host to send, the origin-form path. */
export function parseAbsoluteTarget(
  target: string,
): { dest: Destination; authority: string; path: string } | { error: string } {
  const m = /^http:\/\/([^/?#]*)([^#]*)/i.exec(target);
  if (!m) {
    if (/^https:\/\//i.test(target)) return { error: 'an https:// URL goes through CONNECT' };
    return { error: 'this is a proxy: ask for an absolute http:// URL or CONNECT host:port' };
  }
  const authority = (m[1] ?? '').slice((m[1] ?? '').lastIndexOf('@') + 1); // credentials in the URL are not sent on
  const dest = parseAuthority(authority, 80);
  if (!dest) return { error: 'malformed host in the URL' };
  const rest = m[2] ?? '';
  return { dest, authority, path: rest.startsWith('/') ? rest : `/${rest}` };
}

/** Headers that describe one hop, never sent on (Transfer-Encoding is kept: the body goes on as it came). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'upgrade', 'host']);

/** The request to send the origin server: origin-form, its own Host, no Proxy-* nor hop-by-hop headers, one request. */
export function originRequest(head: HttpHead, authority: string, path: string): string {
  const named = new Set(
    head.headers
      .filter(([n]) => n.toLowerCase() === 'connection')
      .flatMap(([, v]) => v.split(',').map((t) => t.trim().toLowerCase())),
  );
  const kept = head.headers.filter(([n]) => {
    const name = n.toLowerCase();
    return !name.startsWith('proxy-') && !HOP_BY_HOP.has(name) && !named.has(name);
  });
  const lines = [`${head.method} ${path} HTTP/${head.version}`, `Host: ${authority}`];
  for (const [n, v] of kept) lines.push(`${n}: ${v}`);
  lines.push('Connection: close', '', '');
  return lines.join('\r\n');
}

/** `host:port`, an IPv6 address in brackets. */
export function hostPort(d: Destination): string {
  return d.host.includes(':') ? `[${d.host}]:${d.port}` : `${d.host}:${d.port}`;
}
