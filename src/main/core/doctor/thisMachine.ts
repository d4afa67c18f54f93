// Whether a remote target's host is in fact this machine: its commands then run here, outside any local sandbox.
import { lookup } from 'node:dns/promises';
import { networkInterfaces } from 'node:os';
import { settleWithin } from '../platform/index.js';

/** Every address of this machine: its interfaces' and the loopback ranges. */
export function localAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** The first of `addresses` that is this machine's (loopback, or one of `local`), or undefined. */
export function firstLocal(addresses: readonly string[], local: readonly string[]): string | undefined {
  return addresses.find((a) => a.startsWith('127.') || a === '::1' || a === '::ffff:127.0.0.1' || local.includes(a));
}

/** How long a name lookup may take before the check gives up on it (a doctor run waits for it). */
const LOOKUP_MS = 2000;

/** The address of this machine that `host` resolves to, or undefined (another machine, or not resolvable in time). */
export async function resolvesHere(host: string): Promise<string | undefined> {
  let addresses: string[] = [];
  // Not resolvable (a ~/.ssh/config alias, no DNS) or too slow: nothing to say about it.
  const lookedUp = lookup(host, { all: true }).then(
    (r) => void (addresses = r.map((a) => a.address)),
    () => undefined,
  );
  await settleWithin(lookedUp, LOOKUP_MS);
  return firstLocal(addresses, localAddresses());
}
