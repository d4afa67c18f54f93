// One shared, ref-counted, keepalive'd SSH connection per route and credentials, reconnected on demand.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { Duplex } from 'node:stream';
import { Client, utils, type ClientChannel, type SFTPWrapper, type ServerHostKeyAlgorithm } from 'ssh2';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { HostKeyRequest, ProviderContext } from '../provider.js';
import { knownHostFiles, knownTypesFor, loadKnownHosts, verifyHostKey } from './hostKeys.js';
import { preferredHostKeyAlgorithms } from './knownHosts.js';
import { exitCodeOf } from './remoteCommand.js';
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

/** ssh2's default host-key algorithms (all available in pure JS on Node 20), in its order. */
const defaultHostKeyAlgorithms: ServerHostKeyAlgorithm[] = [
  'ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa',
];

type LostListener = (err: SwitchboardError) => void;

/** An open exec channel and the exit code it reported (undefined until it has). */
export interface ExecChannel {
  readonly channel: ClientChannel;
  exitCode(): number | undefined;
}

/** One established SSH connection. Dies once; a reconnect makes a new one. */
export class LiveConnection {
  private alive = true;
  private readonly lost = new Set<LostListener>();
  private sftpSession: Promise<SFTPWrapper> | undefined;
  private intentional = false;
  private lastError: string | undefined;
  private closed: Promise<void>;

  constructor(
    readonly client: Client,
    readonly label: string,
    private readonly onDead: (problem: string | undefined) => void,
    private readonly track: (channel: ClientChannel) => void,
    private readonly jumpLease: SshLease | undefined,
  ) {
    client.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    this.closed = new Promise((resolve) => client.once('close', () => {
      this.die();
      resolve();
    }));
  }

  get isAlive(): boolean {
    return this.alive;
  }

  /** Subscribe to this connection dying; fires at once when it already has. Returns the unsubscriber. */
  onLost(listener: LostListener): () => void {
    if (!this.alive) {
      queueMicrotask(() => listener(this.lostError()));
      return () => undefined;
    }
    this.lost.add(listener);
    return () => this.lost.delete(listener);
  }

  /**
   * An exec channel, counted as activity until it closes. Its exit status is captured here, inside
   * ssh2's callback: for a fast command the status can arrive in the same packet batch as the channel
   * confirmation, before any listener added after an await would exist. (Data waits in the stream.)
   */
  exec(command: string, pty?: { cols: number; rows: number }): Promise<ExecChannel> {
    return new Promise((resolve, reject) => {
      const off = this.onLost(reject);
      const options = pty ? { pty: { term: 'xterm-256color', cols: pty.cols, rows: pty.rows } } : {};
      try {
        this.client.exec(command, options, (err, channel) => {
          off();
          if (err) {
            reject(this.alive ? channelOpenError(this.label, err) : this.lostError());
            return;
          }
          let code: number | undefined;
          channel.on('exit', (c: unknown, signal: unknown) => {
            code = exitCodeOf(c, signal);
          });
          channel.on('error', () => undefined);
          this.track(channel);
          resolve({ channel, exitCode: () => code });
        });
      } catch (err) {
        off();
        reject(this.alive ? channelOpenError(this.label, err) : this.lostError());
      }
    });
  }

  /** The connection's SFTP session, opened on first use and shared. */
  sftp(): Promise<SFTPWrapper> {
    if (!this.sftpSession) {
      const session = new Promise<SFTPWrapper>((resolve, reject) => {
        const off = this.onLost(reject);
        try {
          this.client.sftp((err, sftp) => {
            off();
            if (err) {
              reject(new SwitchboardError('unsupported', `could not start SFTP on ${this.label}: ${err.message}`, 'the server needs an sftp subsystem (Subsystem sftp in sshd_config)'));
              return;
            }
            sftp.once('close', () => {
              if (this.sftpSession === session) this.sftpSession = undefined;
            });
            resolve(sftp);
          });
        } catch (err) {
          off();
          reject(this.alive ? channelOpenError(this.label, err) : this.lostError());
        }
      });
      session.catch(() => {
        if (this.sftpSession === session) this.sftpSession = undefined;
      });
      this.sftpSession = session;
    }
    return this.sftpSession;
  }

  /** Close on purpose (idle, released, shutdown): in-flight calls still fail rather than hang. */
  end(): Promise<void> {
    if (!this.alive) return Promise.resolve();
    this.intentional = true;
    this.client.end();
    // A server that does not answer our disconnect must not keep the socket open.
    const force = setTimeout(() => this.client.destroy(), 1000);
    force.unref();
    return this.closed.finally(() => clearTimeout(force));
  }

  lostError(): SwitchboardError {
    if (this.intentional) {
      return new SwitchboardError('target_unreachable', `the SSH connection to ${this.label} was closed while a call was using it`, 'retry the call');
    }
    const why = this.lastError ? ` (${this.lastError})` : '';
    return new SwitchboardError('target_unreachable', `the SSH connection to ${this.label} was lost${why}`, 'the network dropped or the server restarted; the next call reconnects');
  }

  private die(): void {
    if (!this.alive) return;
    this.alive = false;
    this.sftpSession = undefined;
    const err = this.lostError();
    for (const l of [...this.lost]) l(err);
    this.lost.clear();
    void this.jumpLease?.release();
    this.onDead(this.intentional ? undefined : err.message);
  }
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
  private readonly holders = new Map<object, PoolHolder>();
  private live: LiveConnection | undefined;
  private connecting: Promise<LiveConnection> | undefined;
  private readonly trustedOnce = new Set<string>();
  private activeChannels = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private releaseTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Handshakes done, for tests and diagnostics. */
  connects = 0;

  constructor(readonly key: string, readonly route: string, private readonly hops: readonly SshHop[], private readonly pool: ConnectionPool) {}

  get label(): string {
    return hopLabel(this.hops[this.hops.length - 1] as SshHop);
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

  hold(token: object, holder: PoolHolder): void {
    this.holders.set(token, holder);
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.releaseTimer = undefined;
  }

  connect(trigger: PoolHolder): Promise<LiveConnection> {
    if (this.live?.isAlive) return Promise.resolve(this.live);
    if (!this.connecting) {
      const attempt = this.open(trigger).then(
        (live) => {
          this.connects++;
          if (this.disposed) {
            void live.end();
            throw new SwitchboardError('target_unreachable', `the SSH connection to ${this.label} was released while connecting`, 'retry the call');
          }
          this.live = live;
          this.report(undefined);
          this.armIdle();
          return live;
        },
        (err: unknown) => {
          this.report(err instanceof Error ? err.message : String(err));
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

  private report(problem: string | undefined): void {
    for (const h of this.holders.values()) h.ctx.reportReachability?.(h.identity, problem);
  }

  private trackChannel(channel: ClientChannel): void {
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
        ...(ctx.confirmHostKey ? { confirmHostKey: (r: HostKeyRequest, signal?: AbortSignal) => (ctx.confirmHostKey as NonNullable<ProviderContext['confirmHostKey']>)(r, signal) } : {}),
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

    const where = `${hop.host}:${hop.port}`;
    const client = new Client();
    // Aborted when this handshake ends without a connection: a host-key prompt still open for it is withdrawn.
    const gone = new AbortController();
    return new Promise<LiveConnection>((resolve, reject) => {
      let settled = false;
      let prompting = false;
      let verifyError: SwitchboardError | undefined;
      let timer: NodeJS.Timeout | undefined;
      const disarm = (): void => {
        if (timer) clearTimeout(timer);
        timer = undefined;
      };
      const arm = (): void => {
        disarm();
        timer = setTimeout(() => {
          fail(new SwitchboardError('target_unreachable', `timed out connecting to ${where} (target "${hop.target}") after ${Math.round(settings.connectTimeoutMs / 1000)}s`, 'is the host up and the port right? a firewall may be dropping the connection'));
        }, settings.connectTimeoutMs);
      };
      const fail = (err: SwitchboardError): void => {
        gone.abort();
        if (settled) return;
        settled = true;
        disarm();
        client.destroy();
        void jumpLease?.release();
        reject(err);
      };
      client.on('error', (err: Error & { code?: string; level?: string }) => fail(verifyError ?? connectError(err, hop, auth.tried)));
      client.on('close', () => fail(verifyError ?? (prompting
        ? new SwitchboardError('target_unreachable', `${where} (target "${hop.target}") closed the connection while its host key waited for approval`, 'the server allows only so long for a login (LoginGraceTime); call again and answer the prompt sooner')
        : new SwitchboardError('target_unreachable', `${where} (target "${hop.target}") closed the connection during the SSH handshake`, 'is it an SSH server? it may also limit connections (MaxStartups)'))));
      client.once('ready', () => {
        if (settled) return;
        settled = true;
        disarm();
        // Small request/response packets: without TCP_NODELAY, Nagle and delayed ACKs add ~40 ms to every exec.
        client.setNoDelay(true);
        resolve(new LiveConnection(client, hopLabel(hop), (problem) => this.onLiveDead(problem), (ch) => this.trackChannel(ch), jumpLease));
      });
      arm();
      client.connect({
        host: hop.host,
        port: hop.port,
        ...(sock ? { sock } : {}),
        username: hop.user,
        readyTimeout: 0,
        keepaliveInterval: settings.keepaliveIntervalMs,
        keepaliveCountMax: settings.keepaliveCountMax,
        authHandler: auth.methods,
        algorithms: { serverHostKey: preferredHostKeyAlgorithms(knownTypesFor(entries, hop.host, hop.port), defaultHostKeyAlgorithms) as ServerHostKeyAlgorithm[] },
        hostVerifier: (key: Buffer, verify: (valid: boolean) => void): void => {
          verifyHostKey({
            target: hop.target, host: hop.host, port: hop.port, blob: key, entries, files,
            trustedOnce: this.trustedOnce,
            confirm: trigger.ctx.confirmHostKey ? (r) => (trigger.ctx.confirmHostKey as NonNullable<ProviderContext['confirmHostKey']>)(r, gone.signal) : undefined,
            onPromptStart: () => {
              prompting = true;
              disarm();
            },
            onPromptEnd: () => {
              prompting = false;
              if (!settled) arm();
            },
          }).then(
            () => answer(true),
            (err: unknown) => {
              verifyError = err instanceof SwitchboardError ? err : new SwitchboardError('host_key_unknown', `could not check the host key of ${where}`, String(err));
              answer(false);
            },
          );
          // The answer may come long after the server gave up (its LoginGraceTime): ssh2 must never be
          // called back on a closed connection (it throws from inside its torn-down protocol state).
          function answer(valid: boolean): void {
            if (settled) return;
            verify(valid);
          }
        },
      });
    });
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

  lease(hops: readonly SshHop[], holder: PoolHolder): SshLease {
    const token = {};
    let slot = this.slot(hops);
    slot.hold(token, holder);
    let released = false;
    return {
      label: slot.label,
      connect: () => {
        if (released) return Promise.reject(new SwitchboardError('internal', `SSH lease on ${slot.label} used after release`));
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
    const key = hops.map((h) => hopAuthKey(h, h.keyFiles.map(fileIdentity), process.env.SSH_AUTH_SOCK)).join(' -> ');
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
    return [...this.slots.values()].map((s) => ({ key: s.route, holders: s.holderCount, connected: s.connected, connects: s.connects }));
  }

  /** Close everything now (app shutdown, tests). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.slots.values()].map((s) => s.dispose()));
  }
}

export const connectionPool = new ConnectionPool();

/** A key file's identity on disk (a few local stats when a lease is taken); `-` when it cannot be read. */
function fileIdentity(path: string): string {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}

type AuthMethod =
  | { type: 'publickey'; username: string; key: Buffer }
  | { type: 'agent'; username: string; agent: string }
  | { type: 'password'; username: string; password: string };

/** The login methods to try, in ssh's order; names of what was tried (never secrets) go into errors. */
export async function authMethods(hop: SshHop): Promise<{ methods: AuthMethod[]; tried: string[] }> {
  const methods: AuthMethod[] = [];
  const tried: string[] = [];
  for (const [i, file] of hop.keyFiles.entries()) {
    const mustWork = hop.explicitKey && i === 0;
    let key: Buffer;
    try {
      key = await readFile(file);
    } catch {
      if (mustWork) throw new SwitchboardError('bad_config', `cannot read ssh_key ${file} of target "${hop.target}"`, 'ssh_key is the path of a private key file readable by Switchboard');
      continue;
    }
    const parsed = utils.parseKey(key);
    if (parsed instanceof Error) {
      if (mustWork) {
        const why = /encrypted|passphrase/i.test(parsed.message) ? 'is protected by a passphrase' : 'is not a private key ssh2 can read';
        throw new SwitchboardError('bad_config', `ssh_key ${file} of target "${hop.target}" ${why}`, 'use a passphrase-less key, or load it into ssh-agent and set ssh_agent: true');
      }
      continue;
    }
    methods.push({ type: 'publickey', username: hop.user, key });
    tried.push(`key ${file}`);
  }
  const agent = process.env.SSH_AUTH_SOCK;
  if (hop.agent === true && !agent) {
    throw new SwitchboardError('bad_config', `target "${hop.target}" has ssh_agent: true but SSH_AUTH_SOCK is not set`, 'start ssh-agent (and ssh-add your key) before Switchboard');
  }
  if (hop.agent !== false && agent) {
    methods.push({ type: 'agent', username: hop.user, agent });
    tried.push('ssh-agent');
  }
  if (hop.passwordEnv !== undefined) {
    const password = process.env[hop.passwordEnv];
    if (password === undefined) {
      throw new SwitchboardError('bad_config', `ssh_password_env of target "${hop.target}" names ${hop.passwordEnv}, which is not set`, `export ${hop.passwordEnv} before starting Switchboard`);
    }
    methods.push({ type: 'password', username: hop.user, password });
    tried.push(`password from $${hop.passwordEnv}`);
  }
  if (methods.length === 0) {
    throw new SwitchboardError('bad_config', `no way to log in to ${hopLabel(hop)} (target "${hop.target}"): no readable key, agent or password`, 'set ssh_key, ssh_agent or ssh_password_env');
  }
  return { methods, tried };
}

/** A direct-tcpip channel through a jump connection, used as the next hop's socket. */
function forwardOut(jump: LiveConnection, hop: SshHop): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const off = jump.onLost(reject);
    const fail = (why: string): void => {
      off();
      reject(new SwitchboardError('target_unreachable', `jump host ${jump.label} could not reach ${hop.host}:${hop.port} (target "${hop.target}"): ${why}`, 'check the target address as seen from the jump host, and AllowTcpForwarding there'));
    };
    try {
      jump.client.forwardOut('127.0.0.1', 0, hop.host, hop.port, (err, stream) => {
        if (err) return fail(err.message);
        off();
        resolve(stream);
      });
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  });
}

/** One clear line for a failed connect, naming host:port. */
function connectError(err: Error & { code?: string; level?: string }, hop: SshHop, tried: string[]): SwitchboardError {
  const where = `${hop.host}:${hop.port} (target "${hop.target}")`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return new SwitchboardError('target_unreachable', `connection refused by ${where}`, 'is sshd running there, and is the port right?');
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new SwitchboardError('target_unreachable', `cannot resolve host ${hop.host} (target "${hop.target}")`, 'check ssh_host, or the Host alias in ~/.ssh/config');
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new SwitchboardError('target_unreachable', `no route to ${where} (${err.code})`, 'is the host up and on this network?');
    case 'ECONNRESET':
      return new SwitchboardError('target_unreachable', `${where} reset the connection during the SSH handshake`, 'the server may be refusing this client');
    default:
      break;
  }
  if (err.level === 'client-authentication') {
    return new SwitchboardError('target_unreachable', `authentication failed for ${hop.user}@${hop.host}:${hop.port} (target "${hop.target}"); tried ${tried.join(', ')}`, 'check ssh_user and that the key is in the server\'s authorized_keys');
  }
  return new SwitchboardError('target_unreachable', `could not connect to ${where}: ${err.message.split('\n')[0]}`, 'check the host, port and credentials');
}

function channelOpenError(label: string, err: unknown): SwitchboardError {
  const why = err instanceof Error ? err.message : String(err);
  return new SwitchboardError('target_unreachable', `could not open a channel on ${label}: ${why}`, 'the server may cap sessions per connection (MaxSessions); close some panes or background processes');
}

