// Warm shells over SSH: one identity's pool of `bash -s` shells, each on its own session channel of the pooled
// connection.
//
// The pool and the per-call program are the shared kit (shell/warmShell.ts, shell/warmProgram.ts); this file adapts
// a remote channel to it. A shell belongs to the connection it was opened on: a new connection gets a new pool.
// A waiting shell does not keep the connection from idling out (its calls do); an idle close just ends the shells.
// A call whose shell could not even be opened ran nothing, so the caller runs it the spawn-per-call way instead.
import type { ExecOptions } from '../provider.js';
import type { ExecWrappedOptions, ShellRun } from '../shell/execWrapped.js';
import { openingWarmProcess, type WarmProcess, type WarmShell } from '../shell/warmShell.js';
import { WarmShellPool } from '../shell/warmShellPool.js';
import { namesOwnPid, warmCall } from '../shell/warmProgram.js';
import type { ExecChannel, LiveConnection } from './liveConnection.js';

/** The shell's channel could not be opened: nothing ran; run the call another way. */
export class WarmShellNotStarted extends Error {}

export interface SshWarmDeps {
  /** Open the warm shell's channel with the environment a call with these variables would get. */
  open(live: LiveConnection, env: Record<string, string> | undefined): Promise<ExecChannel>;
  /** Whether bash (4.4+) is there, asked once per connection. */
  hasBash(live: LiveConnection): Promise<boolean>;
  /** End a remote process group gently (HUP and TERM, then KILL after the grace). */
  killGroup(live: LiveConnection, pgid: number): Promise<void>;
  /** The same for a group a sandboxed shell reported: `pgid` of its PID namespace `ns` (sandboxed targets). */
  killInNamespace?(live: LiveConnection, ns: string, pgid: number): Promise<void>;
  /** End everything in a sandboxed shell's PID namespace (its sandbox), at close. */
  killNamespace?(live: LiveConnection, ns: string): Promise<void>;
  /** What a new shell is sent before its first call, where it is not the bash program alone (a sandboxed shell). */
  prelude?(): string | undefined;
  /** The person's env_passthrough names now: a change retires the shells started with the old ones. */
  passthrough(): string;
}

/** What a remote warm process knows about its channel. */
interface RemoteState {
  openError: unknown;
  /** The PID namespace a sandboxed shell said it is in (its first stderr line). */
  namespace?: string;
}

/** The line a sandboxed warm shell starts with on stderr: the PID namespace it is in. */
export const NAMESPACE_TAG = '__SB_PID_NS ';

export class SshWarmShells {
  private pool: WarmShellPool | undefined;
  private live: LiveConnection | undefined;
  private bash: { live: LiveConnection; ok: Promise<boolean> } | undefined;
  private passthrough = '';
  private callEnv: Record<string, string> | undefined;
  private readonly states = new WeakMap<WarmProcess, RemoteState>();
  /**
   * The PID namespaces of this pool's sandboxed shells. Their groups are namespace ids, which mean something else on
   * the host: what their calls left running ends with their sandbox, at close, never by a group id.
   */
  private namespaces = new Set<string>();

  constructor(private readonly deps: SshWarmDeps) {}

  /**
   * Whether this call may run in a warm shell on `live` (bash is there, no stdin, no `$$`, not turned off). Then
   * `take`, with no await in between: a shell is only busy once a call runs in it, so taking and running must be one
   * step.
   */
  async usable(live: LiveConnection, command: string, opts: ExecOptions): Promise<boolean> {
    if (process.env.SWITCHBOARD_NO_WARM_SHELLS || opts.stdin !== undefined || namesOwnPid(command) || !live.isAlive)
      return false;
    // Cannot tell: commands run without a warm shell.
    if (this.bash?.live !== live) this.bash = { live, ok: this.deps.hasBash(live).catch(() => false) };
    if (!(await this.bash.ok)) return false;
    // A shell finishing the last call (answered, not yet reaped) is waited for: sequential calls keep one shell.
    const settling = this.live === live ? this.pool?.settling() : undefined;
    if (settling) await settling;
    return live.isAlive;
  }

  /** A shell on `live` for a call with these variables, or undefined when the pool is full. */
  take(live: LiveConnection, opts: ExecOptions): WarmShell | undefined {
    if (this.live !== live || !this.pool) {
      void this.close();
      const namespaces = new Set<string>();
      this.namespaces = namespaces;
      const start = () => this.start(live, namespaces);
      this.pool = new WarmShellPool({ start, max: 2, lastIdleMs: 120_000 }, (pgid) =>
        namespaces.size ? Promise.resolve() : this.deps.killGroup(live, pgid),
      );
      this.live = live;
    }
    const passthrough = this.deps.passthrough();
    if (passthrough !== this.passthrough) {
      this.pool.renew();
      this.passthrough = passthrough;
    }
    this.callEnv = opts.env;
    return this.pool.acquire();
  }

  /**
   * Run one call in `shell` (taken just now; execWrapped calls `start` before its first await). The connection's loss
   * fails the call as on the spawn path; a shell that never opened throws WarmShellNotStarted from exitStatus.
   */
  run(
    live: LiveConnection,
    shell: WarmShell,
    _command: string,
    exports: Record<string, string>,
  ): {
    wrap: NonNullable<ExecWrappedOptions['wrap']>;
    start: (script: string, sink: (text: string) => void) => Promise<ShellRun>;
  } {
    let call: ReturnType<typeof warmCall> | undefined;
    return {
      wrap: (c, w) => (call = warmCall(c, w, exports)),
      start: async (_script, sink) => {
        const done = live.busy();
        const run = shell.run(call!, sink);
        let stopped = false;
        let offLost: () => void = () => undefined;
        const ended = new Promise<void>((resolve, reject) => {
          offLost = live.onLost((err) => (stopped ? resolve() : reject(err)));
          void run.ended.then(resolve);
        }).finally(() => {
          offLost();
          done();
        });
        ended.catch(() => undefined); // awaited by the caller through `ended`; this keeps it from being unhandled
        return {
          ended,
          exited: () => ended,
          exitStatus: async () => {
            const status = await run.exitStatus();
            if (status.note === undefined) return status;
            if (this.states.get(shell.proc)?.openError !== undefined) throw new WarmShellNotStarted();
            // The channel may close a moment before the connection says it is gone.
            await new Promise((resolve) => setTimeout(resolve, 100).unref());
            if (!live.isAlive) throw live.lostError();
            return status;
          },
          stop: () => {
            stopped = true;
            run.stop();
          },
          detach: () => run.detach(),
          // A lost connection ends a stopped call as stopped (above): it cannot fail after the stop.
          stopReached: () => run.stopReached?.() ?? Promise.resolve(),
        };
      },
    };
  }

  /** Retire every shell (their calls finish first): they were started in a sandbox whose mounts have changed. */
  renew(): void {
    this.pool?.renew();
  }

  /** End every shell and what their calls left running. */
  async close(): Promise<void> {
    const { pool, live, namespaces } = this;
    this.pool = undefined;
    this.live = undefined;
    const sandboxes = live && this.deps.killNamespace ? [...namespaces] : [];
    await Promise.all([pool?.close(), ...sandboxes.map((ns) => this.deps.killNamespace!(live!, ns))]);
  }

  /** A shell process on a channel that is still opening: what it is sent waits for the channel. */
  private start(live: LiveConnection, namespaces: Set<string>): WarmProcess {
    const state: RemoteState = { openError: undefined };
    const prelude = this.deps.prelude?.();
    const proc = openingWarmProcess(
      async (sink) => {
        const { channel } = await this.deps.open(live, this.callEnv);
        channel.setEncoding('utf8');
        channel.stderr.setEncoding('utf8');
        channel.on('data', sink.stdout);
        // A sandboxed shell's first stderr line names its PID namespace; what follows is the shell's.
        let head: string | undefined = this.deps.killInNamespace ? '' : undefined;
        channel.stderr.on('data', (text: string) => {
          if (head === undefined) return sink.stderr(text);
          head += text;
          const nl = head.indexOf('\n');
          if (nl < 0 && head.length < NAMESPACE_TAG.length) return;
          const first = nl < 0 ? '' : head.slice(0, nl);
          const rest = first.startsWith(NAMESPACE_TAG) ? head.slice(nl + 1) : head;
          if (first.startsWith(NAMESPACE_TAG)) {
            state.namespace = first.slice(NAMESPACE_TAG.length).trim();
            namespaces.add(state.namespace);
          }
          head = undefined;
          if (rest) sink.stderr(rest);
        });
        // The shell's exit, not the channel's close: a process the killed shell's call started may hold the channel.
        channel.once('exit', sink.exited);
        channel.once('close', sink.exited);
        return { write: (text) => channel.write(text), end: () => channel.end() };
      },
      (e) => (state.openError = e),
      {
        // A sandboxed shell reports namespace ids: its calls' groups are found through the namespace it named.
        killGroup: (pgid) =>
          state.namespace && this.deps.killInNamespace
            ? this.deps.killInNamespace(live, state.namespace, pgid)
            : this.deps.killGroup(live, pgid),
        ...(prelude ? { prelude } : {}),
      },
    );
    this.states.set(proc, state);
    return proc;
  }
}
