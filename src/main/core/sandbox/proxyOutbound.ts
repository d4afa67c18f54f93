// The sandbox proxy's way out: a destination resolved, each of its addresses judged by the sandbox's rules
// (netRules.ts), and the connection made to the very address allowed; refusals counted and kept for the note.
import { lookup as dnsLookup } from 'node:dns/promises';
import { connect, isIP, type Socket } from 'node:net';
import { networkInterfaces } from 'node:os';
import { addressKind, destinationVerdict, type NetRules, parseIp, THIS_MACHINE } from './netRules.js';
import { type Destination, hostPort } from './proxyHttp.js';
import { SOCKS } from './proxySocks.js';

/** How long one outbound connection may take to open. */
const CONNECT_TIMEOUT_MS = 15_000;
/** How many refusals recentRefusals() keeps (for the sandbox's note). */
const RECENT_REFUSALS = 20;

export type Outcome =
  | { kind: 'ok'; socket: Socket }
  | { kind: 'refused'; why: string }
  | { kind: 'failed'; why: string; socks: number };

/** Every address of this machine's interfaces. */
export function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

async function lookupAll(host: string): Promise<string[]> {
  return (await dnsLookup(host, { all: true })).map((a) => a.address);
}

export function errorCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : 'error';
}

const SOCKS_FOR_ERROR: Record<string, number> = {
  ECONNREFUSED: SOCKS.connectionRefused,
  ENETUNREACH: SOCKS.networkUnreachable,
  EHOSTUNREACH: SOCKS.hostUnreachable,
  ETIMEDOUT: SOCKS.hostUnreachable,
};

export interface OutboundDeps {
  log: (line: string) => void;
  lookup?: ((host: string) => Promise<string[]>) | undefined;
  hostAddresses?: (() => readonly string[]) | undefined;
  /** Every socket opened is the proxy's to end when it closes. */
  track: (s: Socket) => Socket;
}

/** Resolves, judges and connects one destination at a time, under the rules of now. */
export class Outbound {
  readonly counts = { requests: 0, refused: 0 };
  /** The latest refusals, oldest first, each once. */
  readonly refusals: string[] = [];
  private readonly lookup: (host: string) => Promise<string[]>;
  private readonly hostAddresses: () => readonly string[];

  constructor(
    public rules: NetRules,
    private readonly deps: OutboundDeps,
  ) {
    this.lookup = deps.lookup ?? lookupAll;
    this.hostAddresses = deps.hostAddresses ?? machineAddresses;
  }

  async connectChecked(dest: Destination): Promise<Outcome> {
    const host = parseIp(dest.host) ? dest.host.replace(/^\[|\]$/g, '') : dest.host;
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : await this.lookup(host);
    } catch (e) {
      return { kind: 'failed', why: `cannot resolve ${host} (${errorCode(e)})`, socks: SOCKS.hostUnreachable };
    }
    if (addresses.length === 0) return { kind: 'failed', why: `${host} has no address`, socks: SOCKS.hostUnreachable };
    const own = this.hostAddresses();
    const verdicts = addresses.map((address) => ({ address, v: destinationVerdict(dest, address, this.rules, own) }));
    const allowed = verdicts.filter((x) => x.v.ok).map((x) => x.address);
    if (allowed.length === 0) {
      const v = verdicts[0]?.v;
      return this.refuse(dest, v && !v.ok ? v.why : 'refused');
    }
    let last: unknown;
    for (const address of allowed) {
      const kind = addressKind(address, own);
      try {
        return {
          kind: 'ok',
          socket: await this.dial(kind && THIS_MACHINE.has(kind) ? '127.0.0.1' : address, dest.port),
        };
      } catch (e) {
        last = e;
      }
    }
    const code = errorCode(last);
    return { kind: 'failed', why: code, socks: SOCKS_FOR_ERROR[code] ?? SOCKS.generalFailure };
  }

  private refuse(dest: Destination, why: string): Outcome {
    this.counts.refused++;
    const note = `${hostPort(dest)} (${why})`;
    const seen = this.refusals.indexOf(note);
    if (seen >= 0) this.refusals.splice(seen, 1);
    this.refusals.push(note);
    if (this.refusals.length > RECENT_REFUSALS) this.refusals.shift();
    this.deps.log(`sandbox network: refused ${note}`);
    return { kind: 'refused', why };
  }

  private dial(address: string, port: number): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = this.deps.track(connect({ host: address, port, allowHalfOpen: true }));
      const timer = setTimeout(() => {
        s.destroy();
        reject(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' }));
      }, CONNECT_TIMEOUT_MS);
      s.once('connect', () => {
        clearTimeout(timer);
        s.off('error', reject);
        resolve(s);
      });
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
  }
}
