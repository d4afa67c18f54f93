// One plugin's host process as the Core holds it: fork, typed calls with deadlines, a heartbeat while it has work,
// stream events, restart with back-off.
//
// One host per plugin (not one for all): a plugin that hangs, leaks or calls process.exit takes only its own
// backends down, and restarting its host drops nobody else's shells or environments.
import { fork, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { builtFile, backoffMs, END_GRACE_MS } from '../platform/index.js';
import { SwitchboardError } from '../../../shared/errors.js';
import {
  hostMethods,
  HostMessage,
  type HostMethod,
  type HostParams,
  type HostResult,
} from '../../../shared/pluginRpc.js';
import { builtinWithheld, commandEnv } from '../backends/index.js';

/** Where the built host entry is (SWITCHBOARD_PLUGIN_HOST overrides it). */
export function hostEntryPath(): string {
  return process.env.SWITCHBOARD_PLUGIN_HOST || builtFile('plugin-host/host.cjs', 'the plugin host');
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
  method: HostMethod;
}

export interface StreamListener {
  data(data: string): void;
  exit(code: number | null, reason?: string): void;
}

/** Keep the log small: past 1 MiB it becomes `.1` (the one before is dropped). */
function rotate(file: string): void {
  try {
    if (statSync(file).size > 1 << 20) renameSync(file, `${file}.1`);
  } catch {
    /* no log yet */
  }
}

/**
 * The host's event loop answers a ping every `intervalMs` while calls or streams wait on it; `missedMax` unanswered
 * ticks in a row and it is taken for hung (stopped, or a plugin spinning on its event loop), killed and restarted.
 * Ticks are counted, not wall time: a Core that was itself busy for seconds misses at most one tick, not three.
 * Idle (nothing waiting on the host), no timer runs at all.
 */
export const heartbeat = { intervalMs: 1000, missedMax: 3 } as const;

/** Back-off between restarts of a host that keeps dying: 0.5 s, 1 s, 2 s … up to 30 s; reset after a good load. */
export const restartBackoff = { firstMs: 500, maxMs: 30_000 } as const;

/**
 * A host that went down this many times within the window is not restarted again (as VS Code does with an extension
 * host): it is failed, with the reason, until a person restarts it. A crash, a hang and a start that fails all count.
 */
export const restartLimit = { crashes: 3, windowMs: 5 * 60_000 } as const;

export interface PluginHostOptions {
  plugin: string;
  /** Where the host's stdout and stderr go (a plugin's console output, a crash's stack): plugins/.host.log. */
  logFile: string;
  /** Called on every (re)start to load the plugin; resolves when it answered `load`. */
  onStart(host: PluginHost): Promise<void>;
  /** The host died or hung: why, in one line. Its environments and streams are gone. */
  onDown(reason: string): void;
  /** The host went down restartLimit.crashes times within its window and is not restarted: why, in one line. */
  onGaveUp(reason: string): void;
  /** A line for the plugin's author in plugins/.host.log: a call that missed its deadline, a host that was ended. */
  log(message: string): void;
}

export class PluginHost {
  private child: ChildProcess | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly streams = new Map<string, StreamListener>();
  private restartTimer: NodeJS.Timeout | undefined;
  private attempts = 0;
  /** When the host went down lately (within restartLimit.windowMs). */
  private crashes: number[] = [];
  private closed = false;
  private beatTimer: NodeJS.Timeout | undefined;
  /** The ping waiting for its answer, and how many ticks it has been waiting. */
  private ping: number | undefined;
  private missed = 0;
  /** Bumped on every start: environments remember it to know they died with an earlier host. */
  generation = 0;

  constructor(private readonly opts: PluginHostOptions) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Whether the heartbeat runs now: only while a call or a stream waits on the host. */
  get heartbeating(): boolean {
    return this.beatTimer !== undefined;
  }

  /** The host process's pid while one runs (a restarted host has a new one). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Fork the host and load the plugin; on failure the host is stopped and a restart scheduled. */
  async start(): Promise<void> {
    if (this.closed || this.child) return;
    this.generation++;
    // The host never sees the Core's credentials, whatever a plugin does with process.env.
    const env = commandEnv({ withhold: builtinWithheld, passthrough: [] }, { inherit: 'all' });
    // Inside Electron, process.execPath is Electron itself: the host must run as plain Node.
    if (process.versions.electron) env.ELECTRON_RUN_AS_NODE = '1';
    mkdirSync(dirname(this.opts.logFile), { recursive: true, mode: 0o700 });
    rotate(this.opts.logFile);
    const log = openSync(this.opts.logFile, 'a', 0o600);
    let child: ChildProcess;
    try {
      // A process group of its own: a hung host is killed with whatever it started in it, never the Core's group.
      child = fork(hostEntryPath(), [], {
        env,
        stdio: ['ignore', log, log, 'ipc'],
        serialization: 'json',
        detached: true,
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    child.on('message', (raw) => this.onMessage(raw));
    child.once('exit', (code, signal) =>
      this.onExit(child, signal ? `its host was killed by ${signal}` : `its host exited with code ${code ?? '?'}`),
    );
    child.once('error', () => undefined);
    try {
      await this.opts.onStart(this);
      this.attempts = 0;
    } catch (err) {
      this.down(err instanceof Error ? err.message : String(err), true);
      throw err;
    }
  }

  /**
   * Call a method with a deadline. A missed deadline fails that call only: whether the host itself is stuck is the
   * heartbeat's to say, and a plugin call that never answers is no reason to end the plugin's other shells.
   */
  call<M extends HostMethod>(method: M, params: HostParams<M>, deadlineMs: number): Promise<HostResult<M>> {
    const child = this.child;
    if (!child?.connected) {
      return Promise.reject(
        new SwitchboardError(
          'target_unreachable',
          `plugin ${this.opts.plugin} is not running`,
          'see: switchboard plugins list',
        ),
      );
    }
    const id = this.nextId++;
    return new Promise<HostResult<M>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        this.beat();
        const line = `${method} gave no answer within ${Math.round(deadlineMs / 1000)}s`;
        this.opts.log(`${line} (its host still answers; the call was failed)`);
        reject(
          new SwitchboardError(
            'timeout',
            `plugin ${this.opts.plugin}: ${line}`,
            'the plugin may be stuck on this call; see plugins/.host.log',
          ),
        );
      }, deadlineMs);
      this.pending.set(id, {
        resolve: (v) => {
          const parsed = hostMethods[method].result.safeParse(v);
          if (parsed.success) resolve(parsed.data as HostResult<M>);
          else
            reject(
              new SwitchboardError('internal', `plugin ${this.opts.plugin}: ${method} answered something malformed`),
            );
        },
        reject,
        timer,
        method,
      });
      this.beat();
      child.send({ id, method, params }, (err) => {
        if (!err) return;
        const p = this.pending.get(id);
        if (!p) return;
        clearTimeout(p.timer);
        this.pending.delete(id);
        this.beat();
        reject(new SwitchboardError('target_unreachable', `plugin ${this.opts.plugin}: its host is gone`));
      });
    });
  }

  /** Route a stream's output and exit to `listener` until it exits. */
  watchStream(streamId: string, listener: StreamListener): void {
    this.streams.set(streamId, listener);
    this.beat();
  }

  /**
   * Run the heartbeat while something waits on the host (a call, a stream), and only then. Not for `load`: importing
   * a plugin evaluates its modules in one synchronous go, which a big SDK on a loaded machine may stretch past a few
   * beats; a load that hangs meets its own deadline.
   */
  private beat(): void {
    const waiting = this.streams.size > 0 || [...this.pending.values()].some((p) => p.method !== 'load');
    const busy = this.child !== undefined && waiting;
    if (busy && !this.beatTimer) {
      this.beatTimer = setInterval(() => this.tick(), heartbeat.intervalMs);
      // The heartbeat never keeps the Core alive; the calls it watches do, if anything.
      this.beatTimer.unref();
    } else if (!busy && this.beatTimer) {
      clearInterval(this.beatTimer);
      this.beatTimer = undefined;
      this.ping = undefined;
      this.missed = 0;
    }
  }

  private tick(): void {
    const child = this.child;
    if (!child) return this.beat();
    if (this.ping !== undefined) {
      if (++this.missed >= heartbeat.missedMax)
        this.down(
          `its host stopped answering (no heartbeat for ${(heartbeat.missedMax * heartbeat.intervalMs) / 1000}s)`,
          true,
        );
      return;
    }
    // Answered by the host's own event loop (hostProcess.ts), never by the plugin: a slow exec does not delay it.
    const id = this.nextId++;
    this.ping = id;
    // A failed send means the host is gone; its exit says why.
    child.send({ id, method: 'ping', params: {} }, () => undefined);
  }

  private onMessage(raw: unknown): void {
    const msg = HostMessage.safeParse(raw);
    if (!msg.success) return;
    const m = msg.data;
    if ('id' in m) {
      if (m.id === this.ping) {
        this.ping = undefined;
        this.missed = 0;
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      clearTimeout(p.timer);
      this.pending.delete(m.id);
      this.beat();
      if (m.ok) p.resolve(m.result);
      else
        p.reject(
          new SwitchboardError('target_unreachable', `plugin ${this.opts.plugin}: ${p.method} failed: ${m.error}`),
        );
      return;
    }
    if (m.event === 'stream.data') this.streams.get(m.stream_id)?.data(m.data);
    else if (m.event === 'stream.exit') {
      const s = this.streams.get(m.stream_id);
      this.streams.delete(m.stream_id);
      this.beat();
      s?.exit(m.exit_code, m.reason);
    }
  }

  private onExit(child: ChildProcess, reason: string): void {
    if (this.child !== child) return;
    this.down(reason, false);
  }

  /** The host is no use any more: end it, fail what waits on it, and (unless closed) start it again later. */
  private down(reason: string, kill: boolean): void {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    this.beat();
    if (kill) killGroup(child);
    const line = `plugin ${this.opts.plugin}: ${reason}`;
    const now = Date.now();
    if (!this.closed) this.crashes = [...this.crashes.filter((t) => now - t < restartLimit.windowMs), now];
    const givingUp = !this.closed && this.crashes.length >= restartLimit.crashes;
    if (givingUp) this.closed = true;
    const after = givingUp
      ? `; it went down ${this.crashes.length} times in ${restartLimit.windowMs / 60_000} minutes and is not restarted`
      : this.closed
        ? ''
        : '; it is being restarted';
    if (givingUp) this.opts.log(`${reason}${kill ? '; killed' : ''}${after}`);
    else if (!this.closed) this.opts.log(`${reason}${kill ? '; killed' : ''}; restarting`);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(id);
      const hint = givingUp
        ? `a person restarts it: switchboard plugins restart ${this.opts.plugin}`
        : 'try again in a few seconds';
      p.reject(new SwitchboardError('target_unreachable', `${line} during ${p.method}${after}`, hint));
    }
    const streams = [...this.streams.values()];
    this.streams.clear();
    // A background process's status says why it is lost: its host, not the process, ended.
    for (const s of streams) s.exit(null, `lost with its plugin host (${line})`);
    this.opts.onDown(line);
    if (givingUp) return this.opts.onGaveUp(`${line}${after}`);
    if (this.closed) return;
    const wait = backoffMs(this.attempts++, restartBackoff.firstMs, restartBackoff.maxMs);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.start().catch(() => undefined); // a failed start is down() again: logged, and retried later
    }, wait);
    this.restartTimer.unref();
  }

  /** Stop for good (plugin disabled, Core closing). */
  close(): void {
    this.closed = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child) return;
    this.down('disabled', false);
    child.kill('SIGTERM');
    // A host asked to stop (TERM) has the grace every ended process has before its group is killed.
    setTimeout(() => killGroup(child), END_GRACE_MS).unref();
  }
}

/** SIGKILL the host and what it started in its process group (a stopped host dies of it too). */
function killGroup(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone already (the host exited); the host itself may still be reaped.
    child.kill('SIGKILL');
  }
}
