// One established SSH connection: its channels, its SFTP session, and the single moment it dies.
import { EventEmitter } from 'node:events';
import type { Client, ClientChannel, SFTPWrapper } from 'ssh2';
import { SwitchboardError } from '../../../../shared/errors.js';
import { exitCodeOf } from './remoteCommand.js';

type LostListener = (err: SwitchboardError) => void;

/** Something that keeps the connection from idling out until it closes (a channel, a warm shell's call). */
export interface Activity {
  once(event: 'close', listener: () => void): unknown;
}

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
  /** Set when the server refused the sftp subsystem: file operations use commands on this connection. */
  private sftpRefused: SwitchboardError | undefined;
  private intentional = false;
  private lastError: string | undefined;
  private closed: Promise<void>;

  constructor(
    readonly client: Client,
    readonly label: string,
    private readonly onDead: (problem: string | undefined) => void,
    private readonly track: (activity: Activity) => void,
    private readonly jumpLease: { release(): Promise<void> } | undefined,
  ) {
    client.on('error', (err: Error) => {
      this.lastError = err.message;
    });
    this.closed = new Promise((resolve) =>
      client.once('close', () => {
        this.die();
        resolve();
      }),
    );
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
   * An exec channel, counted as activity until it closes (unless `idle`: a warm shell waiting for calls does not
   * keep the connection open; its calls count through `busy`). Its exit status is captured here, inside
   * ssh2's callback: for a fast command the status can arrive in the same packet batch as the channel
   * confirmation, before any listener added after an await would exist. (Data waits in the stream.)
   */
  exec(command: string, pty?: { cols: number; rows: number }, idle = false): Promise<ExecChannel> {
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
          if (!idle) this.track(channel);
          resolve({ channel, exitCode: () => code });
        });
      } catch (err) {
        off();
        reject(this.alive ? channelOpenError(this.label, err) : this.lostError());
      }
    });
  }

  /** Count as activity until the returned function is called. */
  busy(): () => void {
    const activity = new EventEmitter();
    this.track(activity);
    return () => void activity.emit('close');
  }

  /**
   * The connection's SFTP session, opened on first use and shared. A server without an sftp subsystem (many appliances,
   * minimal containers) refuses it: that answer is kept for the life of the connection, and `sftpOrNone` reads it.
   */
  sftp(): Promise<SFTPWrapper> {
    if (this.sftpRefused) return Promise.reject(this.sftpRefused);
    if (!this.sftpSession) {
      const session = new Promise<SFTPWrapper>((resolve, reject) => {
        const off = this.onLost(reject);
        try {
          this.client.sftp((err, sftp) => {
            off();
            if (err) {
              if (!subsystemRefused(err)) {
                reject(this.alive ? channelOpenError(this.label, err) : this.lostError());
                return;
              }
              const refused = new SwitchboardError(
                'unsupported',
                `could not start SFTP on ${this.label}: ${err.message}`,
                'the server needs an sftp subsystem (Subsystem sftp in sshd_config)',
              );
              this.sftpRefused = refused;
              void closeRefusedSftp(this.client).then(() => reject(refused));
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
        // the next caller opens a new session; this one's error goes to its callers
        if (this.sftpSession === session) this.sftpSession = undefined;
      });
      this.sftpSession = session;
    }
    return this.sftpSession;
  }

  /** The SFTP session, or undefined when this server has no sftp subsystem (asked once per connection). */
  sftpOrNone(): Promise<SFTPWrapper | undefined> {
    return this.sftp().catch((err: unknown) => {
      if (this.sftpRefused) return undefined;
      throw err;
    });
  }

  /**
   * Runs a short helper command to its end (no wrapping, no cwd tracking) and collects its output: stdout, and
   * stderr too when `stderr` is set (the file fallback reads the reasons tools print there). `stdin`, when given, is
   * written and closed.
   */
  run(
    command: string,
    opts: { timeoutMs: number; stdin?: string; stderr?: boolean },
  ): Promise<{ output: string; exitCode: number }> {
    return this.exec(command).then(
      ({ channel, exitCode }) =>
        new Promise((resolve, reject) => {
          let output = '';
          const off = this.onLost(reject);
          const timer = setTimeout(() => {
            channel.close();
            off();
            reject(
              new SwitchboardError(
                'timeout',
                `\`${command.slice(0, 40)}\` did not finish on ${this.label} within ${opts.timeoutMs / 1000}s`,
              ),
            );
          }, opts.timeoutMs);
          channel.setEncoding('utf8');
          channel.stderr.setEncoding('utf8');
          channel.on('data', (d: string) => (output += d));
          channel.stderr.on('data', opts.stderr ? (d: string) => (output += d) : () => undefined);
          channel.on('close', () => {
            clearTimeout(timer);
            off();
            resolve({ output, exitCode: exitCode() ?? 255 });
          });
          channel.end(opts.stdin);
        }),
    );
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
      return new SwitchboardError(
        'target_unreachable',
        `the SSH connection to ${this.label} was closed while a call was using it`,
        'retry the call',
      );
    }
    const why = this.lastError ? ` (${this.lastError})` : '';
    return new SwitchboardError(
      'target_unreachable',
      `the SSH connection to ${this.label} was lost${why}`,
      'the network dropped or the server restarted; the next call reconnects',
    );
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

function channelOpenError(label: string, err: unknown): SwitchboardError {
  const why = err instanceof Error ? err.message : String(err);
  return new SwitchboardError(
    'target_unreachable',
    `could not open a channel on ${label}: ${why}`,
    'the server may cap sessions per connection (MaxSessions); close some panes or background processes',
  );
}

/**
 * The server said no to the subsystem (not configured), or its sftp server exited at once (configured, not
 * installed): both mean "no SFTP here", unlike a channel the server would not open (MaxSessions), which may pass.
 */
function subsystemRefused(err: Error): boolean {
  return /^Unable to start subsystem|while establishing SFTP session|unexpected SFTP session termination/.test(
    err.message,
  );
}

/** The parts of ssh2's client a refused subsystem's channel is found through (not in its typings). */
interface ChannelTable {
  _chanMgr?: { _channels?: Record<string, unknown> };
}

/** How long a refused subsystem's channel may take to close before the fallback goes on without it. */
const refusedCloseMs = 2000;

/**
 * ssh2 keeps the channel of a refused subsystem open and hands it to nobody, and OpenSSH counts it against
 * MaxSessions (ten refusals and no command could run). Close it, the SFTP channel that never became a subsystem, and
 * wait for the server's close: until then it still holds its session. Only `sftp()` opens SFTP channels and it opens
 * one at a time, so that channel is the refused one.
 */
async function closeRefusedSftp(client: Client): Promise<void> {
  const channels = (client as unknown as ChannelTable)._chanMgr?._channels ?? {};
  const closing: Array<Promise<void>> = [];
  for (const ch of Object.values(channels)) {
    const c = ch as {
      constructor?: { name?: string };
      subtype?: unknown;
      destroy?: () => void;
      once?: (event: 'close', l: () => void) => void;
    };
    if (
      c?.constructor?.name !== 'SFTP' ||
      c.subtype !== undefined ||
      typeof c.destroy !== 'function' ||
      typeof c.once !== 'function'
    )
      continue;
    closing.push(
      new Promise<void>((resolve) => {
        c.once?.('close', resolve);
        setTimeout(resolve, refusedCloseMs).unref();
      }),
    );
    c.destroy();
  }
  await Promise.all(closing);
}
