// A tiny ustar/PAX writer and reader for the Engine's archive API (files and directories only).

export interface TarInput {
  /** Relative path; directories may end with `/`. */
  name: string;
  type: 'file' | 'directory';
  /** Permission bits, e.g. 0o644. */
  mode: number;
  data?: Buffer;
  /** Seconds since the epoch. */
  mtime?: number;
}

export interface TarEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  mode: number;
  size: number;
  data: Buffer;
  linkname: string;
}

const block = 512;

/** A whole archive in memory: one header (plus a PAX header for long names) and padded data per entry. */
export function packTar(entries: readonly TarInput[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.type === 'file' ? (e.data ?? Buffer.alloc(0)) : Buffer.alloc(0);
    let name = e.name.replace(/^\/+/, '');
    if (e.type === 'directory' && !name.endsWith('/')) name += '/';
    const mtime = e.mtime ?? Math.floor(Date.now() / 1000);
    const split = splitUstarName(name);
    if (!split) {
      // Names that do not fit ustar's 100+155 bytes go in a PAX extended header, which every reader honours.
      const pax = Buffer.from(paxRecord('path', name), 'utf8');
      parts.push(header({ name: 'PaxHeader', prefix: '', mode: 0o644, size: pax.length, mtime, typeflag: 'x' }), pad(pax));
    }
    const fit = split ?? { prefix: '', name: truncateUtf8(name, 100) };
    parts.push(header({ ...fit, mode: e.mode, size: data.length, mtime, typeflag: e.type === 'directory' ? '5' : '0' }));
    if (data.length) parts.push(pad(data));
  }
  parts.push(Buffer.alloc(block * 2));
  return Buffer.concat(parts);
}

/** Every entry of an archive; PAX and GNU long names applied. Throws on a corrupt header. */
export function unpackTar(buf: Buffer): TarEntry[] {
  const out: TarEntry[] = [];
  let offset = 0;
  let longName: string | undefined;
  let longLink: string | undefined;
  let paxSize: number | undefined;
  while (offset + block <= buf.length) {
    const h = buf.subarray(offset, offset + block);
    if (h.every((b) => b === 0)) break;
    if (readOctal(h, 148, 8) !== checksum(h)) throw new Error(`tar: bad header checksum at offset ${offset}`);
    const typeflag = String.fromCharCode(h[156] ?? 0);
    const size = paxSize ?? readSize(h);
    paxSize = undefined;
    const dataStart = offset + block;
    const data = buf.subarray(dataStart, dataStart + size);
    if (data.length < size) throw new Error('tar: archive ends inside an entry');
    offset = dataStart + Math.ceil(size / block) * block;
    if (typeflag === 'x') {
      const rec = parsePax(data.toString('utf8'));
      if (rec.path !== undefined) longName = rec.path;
      if (rec.linkpath !== undefined) longLink = rec.linkpath;
      if (rec.size !== undefined) paxSize = Number(rec.size);
      continue;
    }
    if (typeflag === 'g') continue;
    if (typeflag === 'L') {
      longName = cString(data, 0, data.length);
      continue;
    }
    if (typeflag === 'K') {
      longLink = cString(data, 0, data.length);
      continue;
    }
    const prefix = h.toString('latin1', 257, 263).startsWith('ustar') ? cString(h, 345, 155) : '';
    const shortName = cString(h, 0, 100);
    const name = longName ?? (prefix ? `${prefix}/${shortName}` : shortName);
    const linkname = longLink ?? cString(h, 157, 100);
    longName = undefined;
    longLink = undefined;
    out.push({ name, type: entryType(typeflag, name), mode: readOctal(h, 100, 8) & 0o7777, size, data: Buffer.from(data), linkname });
  }
  return out;
}

function entryType(flag: string, name: string): TarEntry['type'] {
  if (flag === '0' || flag === '\0' || flag === '7') return name.endsWith('/') ? 'directory' : 'file';
  if (flag === '5') return 'directory';
  if (flag === '2') return 'symlink';
  return 'other';
}

/** ustar keeps a path as prefix (≤155 bytes) + "/" + name (≤100 bytes). */
export function splitUstarName(path: string): { prefix: string; name: string } | undefined {
  const len = Buffer.byteLength(path);
  if (len <= 100) return { prefix: '', name: path };
  // Try every slash from the right so the name part is as long as allowed.
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== '/' || i === path.length - 1) continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name.length > 0) return { prefix, name };
  }
  return undefined;
}

/** One PAX record: its length prefix counts its own digits. */
export function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const len = Buffer.byteLength(body);
  let total = len + String(len).length;
  while (len + String(total).length !== total) total = len + String(total).length;
  return `${total}${body}`;
}

function parsePax(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const buf = Buffer.from(text, 'utf8');
  let at = 0;
  while (at < buf.length) {
    const space = buf.indexOf(0x20, at);
    if (space < 0) break;
    const len = Number(buf.toString('latin1', at, space));
    if (!Number.isInteger(len) || len <= 0) break;
    const rec = buf.toString('utf8', space + 1, at + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    at += len;
  }
  return out;
}

function header(h: { name: string; prefix: string; mode: number; size: number; mtime: number; typeflag: string }): Buffer {
  const b = Buffer.alloc(block);
  b.write(h.name, 0, 100, 'utf8');
  writeOctal(b, 100, 8, h.mode);
  writeOctal(b, 108, 8, 0);
  writeOctal(b, 116, 8, 0);
  writeOctal(b, 124, 12, h.size);
  writeOctal(b, 136, 12, h.mtime);
  b.write(h.typeflag, 156, 1, 'latin1');
  b.write('ustar\u000000', 257, 8, 'latin1');
  b.write('root', 265, 32, 'latin1');
  b.write('root', 297, 32, 'latin1');
  b.write(h.prefix, 345, 155, 'utf8');
  const sum = checksum(b);
  b.write(sum.toString(8).padStart(6, '0') + '\u0000 ', 148, 8, 'latin1');
  return b;
}

/** The header's byte sum with the checksum field counted as eight spaces. */
function checksum(h: Buffer): number {
  let sum = 0;
  for (let i = 0; i < block; i++) sum += i >= 148 && i < 156 ? 0x20 : (h[i] ?? 0);
  return sum;
}

function writeOctal(b: Buffer, at: number, width: number, value: number): void {
  const digits = value.toString(8);
  if (digits.length > width - 1) throw new Error(`tar: ${value} does not fit a ${width}-byte field`);
  b.write(digits.padStart(width - 1, '0') + '\u0000', at, width, 'latin1');
}

function readOctal(b: Buffer, at: number, width: number): number {
  const s = b.toString('latin1', at, at + width).replace(/[\0 ]+$/g, '').replace(/^[\0 ]+/, '');
  return s ? parseInt(s, 8) : 0;
}

/** The size field, octal or (GNU, for ≥ 8 GiB) base-256 with the high bit set. */
function readSize(h: Buffer): number {
  const first = h[124] ?? 0;
  if (first & 0x80) {
    let n = first & 0x7f;
    for (let i = 125; i < 136; i++) n = n * 256 + (h[i] ?? 0);
    return n;
  }
  return readOctal(h, 124, 12);
}

function cString(b: Buffer, at: number, width: number): string {
  const end = b.indexOf(0, at);
  return b.toString('utf8', at, end < 0 || end > at + width ? at + width : end);
}

function pad(data: Buffer): Buffer {
  const rest = data.length % block;
  return rest === 0 ? data : Buffer.concat([data, Buffer.alloc(block - rest)]);
}

function truncateUtf8(s: string, bytes: number): string {
  let out = s;
  while (Buffer.byteLength(out) > bytes) out = out.slice(0, -1);
  return out;
}
