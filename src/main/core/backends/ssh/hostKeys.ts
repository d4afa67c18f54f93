// Host-key policy: ~/.ssh/known_hosts and Switchboard's own store, the person's decision on unknown keys.
import { appendFile, chmod, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { ProviderContext } from '../provider.js';
import {
  checkHostKey,
  fingerprintOf,
  hostFieldMatches,
  keyTypeOfBlob,
  knownHostsLine,
  parseKnownHosts,
  type KnownHostEntry,
} from './knownHosts.js';

/** Where keys are looked up: the user's OpenSSH files (read only) and Switchboard's store (appended to). */
export interface KnownHostFiles {
  user: string[];
  own: string;
}

export function knownHostFiles(localHome: string, switchboardHome: string): KnownHostFiles {
  return {
    user: [join(localHome, '.ssh', 'known_hosts'), join(localHome, '.ssh', 'known_hosts2')],
    own: join(switchboardHome, 'known_hosts'),
  };
}

/** Every entry of every file; a missing file has none. */
export async function loadKnownHosts(files: KnownHostFiles): Promise<KnownHostEntry[]> {
  // A missing file has no entries.
  const texts = await Promise.all([...files.user, files.own].map((f) => readFile(f, 'utf8').catch(() => '')));
  return texts.flatMap(parseKnownHosts);
}

/** Key types already known for a host, so they can be offered first. */
export function knownTypesFor(entries: readonly KnownHostEntry[], host: string, port: number): string[] {
  return entries
    .filter((e) => e.marker === undefined && hostFieldMatches(e.hosts, host, port))
    .map((e) => keyTypeOfBlob(e.key));
}

export interface HostKeyCheck {
  target: string;
  host: string;
  port: number;
  blob: Buffer;
  entries: readonly KnownHostEntry[];
  files: KnownHostFiles;
  /** Fingerprints trusted once for this pooled connection. */
  trustedOnce: Set<string>;
  confirm: ProviderContext['confirmHostKey'];
  /** Called while the person decides, so connect timeouts do not count their thinking time. */
  onPromptStart?: () => void;
  onPromptEnd?: () => void;
}

/** Accepts a presented host key or throws host_key_unknown / host_key_changed. Never puts key material in errors. */
export async function verifyHostKey(c: HostKeyCheck): Promise<void> {
  const where = `${c.host}:${c.port}`;
  const fingerprint = fingerprintOf(c.blob);
  const keyType = keyTypeOfBlob(c.blob);
  const verdict = checkHostKey(c.entries, c.host, c.port, c.blob);
  if (verdict.status === 'known') return;
  if (verdict.status === 'revoked') {
    throw new SwitchboardError(
      'host_key_changed',
      `the host key of ${where} (target "${c.target}", ${fingerprint}) is marked @revoked in known_hosts; ` +
        `refusing to connect`,
      'the server must be given a new host key',
    );
  }
  if (verdict.status === 'changed') {
    throw new SwitchboardError(
      'host_key_changed',
      `WARNING: the ${keyType} host key of ${where} (target "${c.target}") has CHANGED: now ${fingerprint}, ` +
        `known as ${verdict.expectedFingerprint}; someone may be intercepting the connection ` +
        `(man-in-the-middle), so it was refused`,
      `if the server was really reinstalled, check the new fingerprint out of band, ` +
        `then remove the old line for ${where} from ~/.ssh/known_hosts or ${c.files.own}`,
    );
  }
  if (c.trustedOnce.has(fingerprint)) return;
  if (!c.confirm) {
    throw new SwitchboardError(
      'host_key_unknown',
      `the ${keyType} host key of ${where} (target "${c.target}") is not known; its fingerprint is ${fingerprint}`,
      `if ${fingerprint} is right, trust it from the app, or add the host to ~/.ssh/known_hosts (ssh ` +
        `-p ${c.port} ${c.host})`,
    );
  }
  c.onPromptStart?.();
  let decision: 'trust_always' | 'trust_once' | 'reject';
  try {
    decision = await c.confirm({ target: c.target, host: c.host, port: c.port, keyType, fingerprint });
  } finally {
    c.onPromptEnd?.();
  }
  if (decision === 'reject') {
    throw new SwitchboardError(
      'host_key_unknown',
      `the host key ${fingerprint} of ${where} (target "${c.target}") was rejected`,
      'connect again and trust the key if its fingerprint is right',
    );
  }
  if (decision === 'trust_once') {
    c.trustedOnce.add(fingerprint);
    return;
  }
  await appendKnownHost(c.files.own, knownHostsLine(c.host, c.port, c.blob));
}

/** Appends one line to Switchboard's store (mode 0600), adding a newline if the file lacks one. */
async function appendKnownHost(file: string, line: string): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true, mode: 0o700 });
  const before = await readFile(file, 'utf8').catch(() => ''); // a missing file is empty
  const sep = before === '' || before.endsWith('\n') ? '' : '\n';
  await appendFile(file, `${sep}${line}\n`, { mode: 0o600 });
  await chmod(file, 0o600).catch(() => undefined); // a file we may not chmod kept its mode
}
