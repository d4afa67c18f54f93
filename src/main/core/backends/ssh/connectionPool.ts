// One shared, ref-counted, keepalive'd SSH connection per route and credentials, reconnected on demand.
import { homedir } from 'node:os';
import type { Duplex } from 'node:stream';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { HostKeyRequest, ProviderContext } from '../provider.js';
import { dial, forwardOut } from './dial.js';
import { knownHostFiles, loadKnownHosts } from './hostKeys.js';
import { LiveConnection, type Activity } from './liveConnection.js';
import { authMethods, keyFileIdentity } from './sshAuth.js';
import { hopAuthKey, hopLabel, routeKey, type SshHop } from './sshRoute.js';

export interface PoolSettings {
  /** TCP connect + handshake + auth; the time a person spends on a host-key prompt is not counted. */
  connectTimeoutMs: number;
  keepaliveIntervalMs: number;
  /** Missed keepalives before the connection is declared dead. */
  keepaliveCountMax: number;
  /** A connection with no open channel for this long is closed; the next call reconnects. */
  idleMs: number;
  /** After the last environment lets go, wait this long before closing (a quick re-create reuses it). */
  releaseGraceMs: number;
}

const settings: PoolSettings = {
  connectTimeoutMs: 10_000,
  keepaliveIntervalMs: 10_000,
  keepaliveCountMax: 3,
  idleMs: 5 * 60_000,
  releaseGraceMs: 30_000,
};

/** Tune the pool (tests shorten the timers). */
export function configureSshPool(changes: Partial<PoolSettings>): void {
  Object.assign(settings, changes);
}

/** Who holds a connection: the environment's identity and the Core services lent to it. */
export interface PoolHolder {
  identity: string;
  ctx: ProviderContext;
}

/** A holder as its slot keeps it: with the name of the target its own route ends at. */
interface SlotHolder extends PoolHolder {
  target: string;
}

/**
 * What one holder's connection attempt met, said to another holder of the same connection in its own name: targets on
 * one address share a connection, and a failure that names the first of them is told to each as its own.
 */
export function inTargetsName(message: string, from: string, to: string): string {
  return from === to ? message : message.replaceAll(`target "${from}"`, `target "${to}"`);
}

/** An environment's hold on one pooled connection. */
export interface SshLease {
  /** `user@host:port` of the last hop. */
  readonly label: string;
  /** The live connection, reusing or (re)connecting it. */
  connect(): Promise<LiveConnection>;
  /** Let go; the connection closes after the grace period when nobody else holds it. */
  release(): Promise<void>;
}

/** One pool slot: holders, the current live connection, and trust given once. */
class PooledConnection {
  private readonly holders = new Map<object, SlotHolder>();
  private live: LiveConnection | undefined;
  private connecting: Promise<LiveConnection> | undefined;
  /** Whether the attempt in flight can ask a person about an unknown host key (a health probe cannot). */
  private connectingCanAsk = false;
  private readonly trustedOnce = new Set<string>();
  private activeChannels = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Handshakes done, for tests and diagnostics. */
  connects = 0;

  constructor(
    readonly key: string,
    readonly route: string,
    private readonly hops: readonly SshHop[],
    private readonly pool: ConnectionPool,
  ) {}

  get label(): string {
    return hopLabel(this.hops[this.hops.length - 1] as SshHop);
  }

  /** The target the slot's own route was resolved for: what its dial errors name. */
  private get target(): string {
    return (this.hops[this.hops.length - 1] as SshHop).target;
  }

  get holderCount(): number {
    return this.holders.size;
  }

  get connected(): boolean {
    return this.live?.isAlive === true;
  }

  get isDisposed(): boolean {
    return this.disposed;
  }

  hold(token: object, holder: SlotHolder): void {
    this.holders.set(token, holder);
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
  }

  /** The live connection; a failure is told in the trigger's own target's name, whoever's attempt met it. */
  connect(trigger: SlotHolder): Promise<LiveConnection> {
    return this.connectShared(trigger).catch((err: unknown) => {
      if (!(err instanceof SwitchboardError) || trigger.target === this.target) throw err;
      throw new SwitchboardError(err.code, inTargetsName(err.message, this.target, trigger.target), err.hint);
    });
  }

  private connectShared(trigger: SlotHolder): Promise<LiveConnection> {
    if (this.live?.isAlive) return Promise.resolve(this.live);
    const canAsk = trigger.ctx.confirmHostKey !== undefined;
    if (this.connecting && canAsk && !this.connectingCanAsk) {
      // Joined a probe's attempt, which fails on an unknown host key without asking: then ask, in an attempt of our
      // own.
      return this.connecting.catch((err: unknown) => {
        if (err instanceof SwitchboardError && err.code === 'host_key_unknown') return this.connectShared(trigger);
        throw err;
      });
    }
    if (!this.connecting) {
      this.connectingCanAsk = canAsk;
      const attempt = this.open(trigger).then(
        (live) => {
          this.connects++;
          if (this.disposed) {
            void live.end();
            throw new SwitchboardError(
              'target_unreachable',
              `the SSH connection to ${this.label} was released while connecting`,
              'retry the call',
            );
          }
          this.live = live;
          this.report(undefined);
          this.armIdle();
          return live;
        },
        (err: unknown) => {
          // An unknown host key that nobody was asked about says nothing of whether the host is reachable.
          const code = err instanceof SwitchboardError ? err.code : undefined;
          const unasked = !canAsk && code === 'host_key_unknown';
          // A port that answers does not undo a key that changed or a login refused: those stay until one gets in.
          const lasting = code === 'host_key_changed' || code === 'auth_failed';
          if (!unasked) this.report(err instanceof Error ? err.message : String(err), lasting);
          throw err;
        },
      );
      this.connecting = attempt.finally(() => {
        this.connecting = undefined;
      });
    }
    return this.connecting;
  }

  /** Close now and leave the pool. */
  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.pool.forget(this);
    await this.live?.end();
  }

  async unhold(token: object): Promise<void> {
    this.holders.delete(token);
    if (this.holders.size > 0) return;
    if (settings.releaseGraceMs <= 0) return this.dispose();
    this.releaseTimer = setTimeout(() => {
      if (this.holders.size === 0) void this.dispose();
    }, settings.releaseGraceMs);
    this.releaseTimer.unref();
  }

  private report(problem: string | undefined, lasting = false): void {
    for (const h of this.holders.values())
      h.ctx.reportReachability?.(h.identity, problem && inTargetsName(problem, this.target, h.target), lasting);
  }

  private trackChannel(channel: Activity): void {
    this.activeChannels++;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    channel.once('close', () => {
      this.activeChannels--;
      this.armIdle();
    });
  }

  private armIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (this.activeChannels > 0 || !this.live?.isAlive) return;
    const live = this.live;
    this.idleTimer = setTimeout(() => void live.end(), settings.idleMs);
    this.idleTimer.unref();
  }

  private async open(trigger: PoolHolder): Promise<LiveConnection> {
    const hop = this.hops[this.hops.length - 1] as SshHop;
    const jumps = this.hops.slice(0, -1);
    const auth = await authMethods(hop);
    const files = knownHostFiles(homedir(), trigger.ctx.home);
    const entries = await loadKnownHosts(files);

    let jumpLease: SshLease | undefined;
    let sock: Duplex | undefined;
    if (jumps.length > 0) {
      // The jump connection prompts through the same person but reports nothing itself: this one does.
      const ctx = trigger.ctx;
      const jumpCtx: ProviderContext = {
        home: ctx.home,
        resolveSpec: (name) => ctx.resolveSpec(name),
        ...(ctx.confirmHostKey
          ? {
              confirmHostKey: (r: HostKeyRequest, signal?: AbortSignal) =>
                (ctx.confirmHostKey as NonNullable<ProviderContext['confirmHostKey']>)(r, signal),
            }
          : {}),
      };
      jumpLease = this.pool.lease(jumps, { identity: trigger.identity, ctx: jumpCtx });
      try {
        const jump = await jumpLease.connect();
        sock = await forwardOut(jump, hop);
      } catch (err) {
        void jumpLease.release();
        throw err;
      }
    }

    const confirm = trigger.ctx.confirmHostKey;
    try {
      const client = await dial({
        hop,
        ...(sock ? { sock } : {}),
        auth,
        entries,
        files,
        trustedOnce: this.trustedOnce,
        ...(confirm
          ? { confirm: (r: HostKeyRequest, signal: AbortSignal) => confirm.call(trigger.ctx, r, signal) }
          : {}),
        connectTimeoutMs: settings.connectTimeoutMs,
        keepaliveIntervalMs: settings.keepaliveIntervalMs,
        keepaliveCountMax: settings.keepaliveCountMax,
      });
      return new LiveConnection(
        client,
        hopLabel(hop),
        (problem) => this.onLiveDead(problem),
        (ch) => this.trackChannel(ch),
        jumpLease,
      );
    } catch (err) {
      void jumpLease?.release();
      throw err;
    }
  }

  private onLiveDead(problem: string | undefined): void {
    this.live = undefined;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    if (problem !== undefined) this.report(problem);
  }
}

/**
 * The module-level pool, shared by every environment in the process: connections keyed by route AND by everything
 * that authenticates on each hop (key files and their identity on disk, agent, password variable).
 */
export class ConnectionPool {
  private readonly slots = new Map<string, PooledConnection>();

  lease(hops: readonly SshHop[], pooled: PoolHolder): SshLease {
    const token = {};
    const holder: SlotHolder = { ...pooled, target: (hops[hops.length - 1] as SshHop).target };
    let slot = this.slot(hops);
    slot.hold(token, holder);
    let released = false;
    return {
      label: slot.label,
      connect: () => {
        if (released)
          return Promise.reject(new SwitchboardError('internal', `SSH lease on ${slot.label} used after release`));
        // closeAll() may have emptied the pool under us: take a hold on the new slot.
        if (slot.isDisposed) {
          slot = this.slot(hops);
          slot.hold(token, holder);
        }
        return slot.connect(holder);
      },
      release: () => {
        if (released) return Promise.resolve();
        released = true;
        return slot.unhold(token);
      },
    };
  }

  private slot(hops: readonly SshHop[]): PooledConnection {
    const key = hops.map((h) => hopAuthKey(h, h.keyFiles.map(keyFileIdentity), process.env.SSH_AUTH_SOCK)).join(' -> ');
    let slot = this.slots.get(key);
    if (!slot) {
      slot = new PooledConnection(key, routeKey(hops), hops, this);
      this.slots.set(key, slot);
    }
    return slot;
  }

  forget(slot: PooledConnection): void {
    if (this.slots.get(slot.key) === slot) this.slots.delete(slot.key);
  }

  /** For doctor and tests: each slot's route (`key`), holders, whether it is connected, and handshakes so far. */
  stats(): Array<{ key: string; holders: number; connected: boolean; connects: number }> {
    return [...this.slots.values()].map((s) => ({
      key: s.route,
      holders: s.holderCount,
      connected: s.connected,
      connects: s.connects,
    }));
  }

  /** Close everything now (app shutdown, tests). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.dispose()));
  }
}

export const connectionPool = new ConnectionPool();
