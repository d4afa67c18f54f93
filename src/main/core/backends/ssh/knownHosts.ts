// known_hosts parsing and matching (plain, hashed, [host]:port, wildcards, @revoked), and OpenSSH fingerprints.
import { createHash, createHmac } from 'node:crypto';
import { patternListMatches } from './sshConfig.js';

export interface KnownHostEntry {
  marker: 'revoked' | 'cert-authority' | undefined;
  /** The host field as written: comma-separated patterns, or one `|1|salt|hash`. */
  hosts: string;
  keyType: string;
  key: Buffer;
}

export type HostKeyStatus =
  | { status: 'known' }
  | { status: 'unknown'; otherTypes: string[] }
  | { status: 'changed'; expectedFingerprint: string }
  | { status: 'revoked' };

/** Parse known_hosts text; malformed lines are skipped (as ssh does). */
export function parseKnownHosts(text: string): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    let marker: KnownHostEntry['marker'];
    if (fields[0] === '@revoked' || fields[0] === '@cert-authority') {
      marker = fields[0] === '@revoked' ? 'revoked' : 'cert-authority';
      fields.shift();
    }
    const [hosts, keyType, b64] = fields;
    if (!hosts || !keyType || !b64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) continue;
    out.push({ marker, hosts, keyType, key: Buffer.from(b64, 'base64') });
  }
  return out;
}

/** How known_hosts names a host: `host` on port 22, `[host]:port` otherwise. */
export function hostToken(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** Does a known_hosts host field name this host and port? */
export function hostFieldMatches(hosts: string, host: string, port: number): boolean {
  const token = hostToken(host, port);
  if (hosts.startsWith('|1|')) {
    const [, , salt, hash] = hosts.split('|');
    if (!salt || !hash) return false;
    const mac = createHmac('sha1', Buffer.from(salt, 'base64')).update(token).digest('base64');
    return mac === hash;
  }
  return patternListMatches(hosts.split(','), token);
}

/** The algorithm name inside an SSH public key blob (its first string). */
export function keyTypeOfBlob(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const len = blob.readUInt32BE(0);
  if (len <= 0 || len > 64 || 4 + len > blob.length) return 'unknown';
  return blob.subarray(4, 4 + len).toString('latin1');
}

/** `SHA256:…` exactly as OpenSSH prints it (unpadded base64). */
export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

/** One plain known_hosts line for this host, port and key. */
export function knownHostsLine(host: string, port: number, blob: Buffer): string {
  return `${hostToken(host, port)} ${keyTypeOfBlob(blob)} ${blob.toString('base64')}`;
}

/**
 * Judge a presented key against known entries: a matching @revoked entry wins, then an exact match;
 * a different key of the same type is a change (possible MITM). Other types known only is "unknown".
 */
export function checkHostKey(
  entries: readonly KnownHostEntry[],
  host: string,
  port: number,
  blob: Buffer,
): HostKeyStatus {
  const type = keyTypeOfBlob(blob);
  const mine = entries.filter((e) => e.marker !== 'cert-authority' && hostFieldMatches(e.hosts, host, port));
  if (mine.some((e) => e.marker === 'revoked' && e.key.equals(blob))) return { status: 'revoked' };
  const plain = mine.filter((e) => e.marker === undefined);
  if (plain.some((e) => e.key.equals(blob))) return { status: 'known' };
  const sameType = plain.find((e) => keyTypeOfBlob(e.key) === type);
  if (sameType) return { status: 'changed', expectedFingerprint: fingerprintOf(sameType.key) };
  return { status: 'unknown', otherTypes: [...new Set(plain.map((e) => keyTypeOfBlob(e.key)))] };
}

/** Host-key algorithms to offer, the types already known for this host first (as OpenSSH orders them). */
export function preferredHostKeyAlgorithms(knownTypes: readonly string[], defaults: readonly string[]): string[] {
  const families = (type: string): string[] =>
    type === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [type];
  const first = knownTypes.flatMap(families).filter((a) => defaults.includes(a));
  return [...new Set([...first, ...defaults])];
}
