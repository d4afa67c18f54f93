// The local backend: commands in warm shells (or a fresh bash per call), interactive shells through node-pty. Agent
// work (commands, warm shells, background processes, execute_code, file operations) runs in the target's Sandbox
// unless its spec says `sandbox: off` or none can run here; the panes a person opens are theirs and never sandboxed,
// and start the target's `shell` (paneShell.ts).
// Over 380 lines: the Environment's methods share the target's Sandbox, warm shells and processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHash } from 'node:crypto';
import { SwitchboardError } from '../../../../shared/errors.js';
import type {
  BackendProvider,
  BackgroundHandle,
  Environment,
  ExecOptions,
  ExecResult,
  FileStat,
  ProviderContext,
  ShellChannel,
  TargetSnapshot,
} from '../provider.js';
import { localDeclaration } from '../builtinSpecs.js';
import { execWrapped } from '../shell/execWrapped.js';
import { commandEnv, envRules } from '../shell/commandEnv.js';
import { SecretExports } from '../shell/secretExports.js';
import { openPty } from './pty.js';
import { paneShellWords, resolvePaneShell, type PaneShellSpec } from './paneShell.js';
import { groupAlive, END_GRACE_MS, endGroup, atomicWrite, WriteFailure } from '../../platform/index.js';
import { debugLine, type WarmProcess, type WarmShell } from '../shell/warmShell.js';
import { WarmShellPool } from '../shell/warmShellPool.js';
import { warmCall, warmPrelude, type WarmCall } from '../shell/warmProgram.js';
import { Sandbox, SandboxFiles, sandboxNote, expandPath } from '../../sandbox/index.js';
import { SANDBOX_SHELL_EXIT } from '../shell/sandboxShellExit.js';
import { localReach } from './localReach.js';
import type { SandboxSetting } from '../../../../shared/specFields.js';
import { assertReadableFile } from '../readableFile.js';

/** A stopped call whose pipes something outside its group still holds is answered this long after its end. */
const HELD_PIPES_MS = 1000;

export const localProvider: BackendProvider = {
  ...localDeclaration,
  createEnvironment: (snapshot, ctx) => new LocalEnvironment(snapshot, ctx),
  // This machine: a stat of the cwd, no sandbox started (a probe through one would spawn bwrap per target a minute).
  idleProbe: localReach,
};

/** The shell used for commands: bash where it exists, else sh. */
export function localShell(): string {
  return existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

/**
 * End a detached child's whole process group gently (processes/endGently.ts). It asks the group, not the child: a
 * group outlives its leader (`cmd &` leaves its children in it).
 */
export function endChildGroup(child: ChildProcess, graceMs = END_GRACE_MS): Promise<void> {
  return child.pid === undefined ? Promise.resolve() : endGroup(child.pid, graceMs);
}

class LocalEnvironment implements Environment {
  readonly identity: string;
  private readonly envFile: string;
  private readonly children = new Set<ChildProcess>();
  /** The target's sandbox; undefined when it runs unsandboxed (`unsandboxed` says why). */
  private readonly sandbox: Sandbox | undefined;
  readonly unsandboxed: string | undefined;
  private readonly files: SandboxFiles | undefined;
  /** Children that run in the sandbox: ended through it (killAll), not by their host group. */
  private readonly sandboxed = new WeakSet<ChildProcess>();

  /** This identity's warm shells (bash only); undefined where the spawn-per-call path is the only one. */
  private readonly warm: WarmShellPool | undefined;
  /** Exports that look like credentials: in memory only, never in envFile (shell/secretExports.ts). */
  private readonly secrets = new SecretExports();
  /**
   * The person's env_passthrough (and the names plugins withhold) the warm shells were started with: a change retires
   * them.
   */
  private warmPassthrough = '';
  /** The sandbox's mounts the warm shells were started with (Sandbox.mountSignature). */
  private warmMounts: string | undefined;
  /** The call a new warm shell is started for: the shell gets the environment that call would have got. */
  private warmCallEnv: Record<string, string> | undefined;

  constructor(
    private readonly snapshot: TargetSnapshot,
    private readonly ctx: ProviderContext,
  ) {
    this.identity = snapshot.identity;
    const id = createHash('sha256').update(snapshot.identity).digest('hex').slice(0, 16);
    const setting = (snapshot.spec as { sandbox?: SandboxSetting }).sandbox;
    const sandbox = Sandbox.for(
      {
        setting,
        workspace: expandPath(snapshot.spec.cwd ?? snapshot.flags.default_cwd, homedir()),
        profile: ctx.home,
        id,
        cachesId: createHash('sha256').update(snapshot.name).digest('hex').slice(0, 16),
      },
      endGroup,
    );
    this.sandbox = sandbox instanceof Sandbox ? sandbox : undefined;
    this.unsandboxed = sandbox instanceof Sandbox ? undefined : sandbox.unsandboxed;
    this.files = this.sandbox
      ? new SandboxFiles(this.sandbox, (argv) =>
          this.spawnAgent(argv, {
            cwd: '/',
            // Electron's binary runs the helper as Node with this; plain node ignores it.
            env: { ...this.childEnv(undefined), ELECTRON_RUN_AS_NODE: '1' },
            stdin: 'ignore',
            ipc: true,
            offline: true,
          }),
        )
      : undefined;
    // A sandboxed shell reports namespace pids: its calls' groups are killed through the sandbox, and whether one
    // left something running is the shell's own answer (asking the host would cost a /proc scan per call). What
    // calls left running ends with the sandbox, at cleanup.
    this.warm =
      localShell() === '/bin/bash' && !process.env.SWITCHBOARD_NO_WARM_SHELLS
        ? this.sandbox
          ? new WarmShellPool({ start: () => this.startWarm() }, async () => undefined)
          : new WarmShellPool({ start: () => this.startWarm() }, (g) => endGroup(g), groupAlive)
        : undefined;
    this.envFile = this.sandbox ? this.sandbox.envFile : join(ctx.home, 'state', 'env', `${id}.sh`);
    // Shells started in a network nobody carries out any more are retired; the next call's shell gets the new one.
    this.sandbox?.onNetworkRestart(() => this.warm?.renew());
  }

  async home(): Promise<string> {
    return homedir();
  }

  /** A local child's environment: the Core's own, minus what must not reach a command. */
  private childEnv(extra: Record<string, string> | undefined): Record<string, string> {
    return commandEnv(envRules(this.snapshot.flags.strip_env_keys, this.ctx), { inherit: 'all', extra });
  }

  /** A warm shell for this call, when one can be had: not for a call with stdin (it has a pipe of its own). */
  private warmShell(opts: ExecOptions): WarmShell | undefined {
    if (!this.warm || opts.stdin !== undefined) return undefined;
    // A plugin loaded since adds names withheld everywhere: the shells started before it go too.
    const passthrough = JSON.stringify([this.ctx.envPassthrough?.() ?? [], this.ctx.strippedEverywhere?.() ?? []]);
    if (passthrough !== this.warmPassthrough) {
      this.warm.renew();
      this.warmPassthrough = passthrough;
    }
    // A sandbox whose mounts changed since its shells started (a credential file made since, a repository found, a
    // workspace created): those shells see the old ones, so they go and the call gets a shell with the new.
    const mounts = this.sandbox?.mountSignature();
    if (mounts !== this.warmMounts) {
      if (this.warmMounts !== undefined) this.warm.renew();
      this.warmMounts = mounts;
    }
    this.warmCallEnv = opts.env;
    return this.warm.acquire();
  }

  /** Start a child for agent work: inside the sandbox when the target has one (and the call is not let out of it). */
  private spawnAgent(
    argv: [string, ...string[]],
    opts: {
      cwd: string;
      env: Record<string, string>;
      stdin: 'pipe' | 'ignore';
      outside?: boolean;
      ipc?: boolean;
      offline?: boolean;
    },
  ): ChildProcess {
    const stdio: ['pipe' | 'ignore', 'pipe', 'pipe'] = [opts.stdin, 'pipe', 'pipe'];
    if (!this.sandbox || opts.outside)
      return spawn(argv[0], argv.slice(1), { cwd: opts.cwd, detached: true, env: opts.env, stdio });
    // bwrap is started in a group of its own too: a kill of the group reaches it (and through it, the namespace).
    const child = this.sandbox.spawn(argv, {
      cwd: opts.cwd,
      env: opts.env,
      stdin: opts.stdin,
      newSession: true,
      ...(opts.ipc ? { ipc: true } : {}),
      ...(opts.offline ? { offline: true } : {}),
    });
    this.sandboxed.add(child);
    this.children.add(child);
    child.once('close', () => this.children.delete(child));
    return child;
  }

  /** End a child and all it started: through its sandbox, or by its host process group. */
  private end(child: ChildProcess): Promise<void> {
    return this.sandbox && this.sandboxed.has(child) ? this.sandbox.killAll(child, END_GRACE_MS) : endChildGroup(child);
  }

  private startWarm(): WarmProcess {
    const child = this.spawnAgent([localShell(), '-s'], {
      cwd: '/',
      env: this.childEnv(this.warmCallEnv),
      stdin: 'pipe',
    });
    child.stdin!.on('error', () => undefined);
    const io: Pick<WarmProcess, 'write' | 'end' | 'onStdout' | 'onStderr' | 'onExit'> = {
      write: (text) => child.stdin!.write(text),
      end: () => child.stdin!.end(),
      onStdout: (l) => child.stdout!.setEncoding('utf8').on('data', l),
      // The warm shell keeps only its control lines from stderr; bwrap's own complaint (a shell that never started)
      // goes to the Core's log, or the call would only say that its shell ended.
      onStderr: (l) =>
        child.stderr!.setEncoding('utf8').on('data', (text: string) => {
          if (this.sandbox && text.startsWith('bwrap: '))
            process.stderr.write(
              `switchboard: the sandbox of ${this.identity} did not start: ${text.split('\n')[0]}\n`,
            );
          l(text);
        }),
      onExit: (l) => {
        child.once('error', l);
        child.once('exit', l);
      },
    };
    const sandbox = this.sandbox;
    if (sandbox)
      return {
        ...io,
        killGroup: (pgid) => sandbox.killReportedGroup(child, pgid, END_GRACE_MS),
        prelude: SANDBOX_SHELL_EXIT + warmPrelude(),
      };
    return { ...io, killGroup: (pgid) => endGroup(pgid), groupAlive };
  }

  async exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    const refusedBefore = this.sandbox?.refusedConnections() ?? [];
    const result = await this.execIn(command, opts);
    if (!this.sandbox || opts.outsideSandbox) return result;
    const refused = this.sandbox.refusedConnections().filter((r) => !refusedBefore.includes(r));
    const note = sandboxNote(result.output, result.exitCode, this.sandbox.policy, refused);
    return note ? { ...result, output: `${result.output.replace(/\n?$/, '\n')}${note}` } : result;
  }

  private async execIn(command: string, opts: ExecOptions): Promise<ExecResult> {
    if (!opts.outsideSandbox) await this.sandbox?.ready();
    // A stat, not a mkdir, on every call: an fs call through the thread pool costs a call more than the stat. (A
    // sandbox's exports file is in its private /tmp, made by the shell inside.)
    if (!this.sandbox && !existsSync(dirname(this.envFile)))
      await mkdir(dirname(this.envFile), { recursive: true, mode: 0o700 });
    // A call let out of the sandbox runs in a shell of its own, outside; the warm shells are the sandbox's.
    const outside = this.sandbox !== undefined && opts.outsideSandbox === true;
    // A shell finishing the last call (answered, not yet reaped) is waited for: sequential calls keep one shell.
    const settling = opts.stdin === undefined && !outside ? this.warm?.settling() : undefined;
    if (settling) await settling;
    const shell = outside ? undefined : this.warmShell(opts);
    debugLine(`exec on ${this.identity} in ${shell ? 'a warm shell' : 'a shell of its own'}`);
    if (shell) {
      // The call's own variables (run markers), withheld names dropped as for any child.
      // The identity's secret exports go in the call's text (the shell's stdin, never a command line).
      const exports = {
        ...commandEnv(envRules(this.snapshot.flags.strip_env_keys, this.ctx), {
          inherit: 'passthrough',
          extra: opts.env,
          source: {},
        }),
        ...this.secrets.env(),
      };
      let call: WarmCall | undefined;
      return execWrapped(
        command,
        { ...opts, envFile: this.envFile, secrets: this.secrets, wrap: (c, w) => (call = warmCall(c, w, exports)) },
        async (_script, sink) => shell.run(call!, sink),
      );
    }
    // A call let out of the sandbox runs what the person approved and nothing else: not the exports that calls in the
    // sandbox wrote (a file an agent can write), nor the variables they set.
    const carried = outside ? { envFile: undefined } : { envFile: this.envFile, secrets: this.secrets };
    return execWrapped(command, { ...opts, ...carried }, async (script, sink) => {
      const child = this.spawnAgent([localShell(), '-c', script], {
        cwd: '/',
        env: { ...this.childEnv(opts.env), ...(outside ? {} : this.secrets.env()) },
        stdin: opts.stdin === undefined ? 'ignore' : 'pipe',
        outside,
      });
      // Tracked until its pipes close, so cleanup also ends a background child (`cmd &`) the call left running.
      this.children.add(child);
      child.once('close', () => this.children.delete(child));
      child.stdout?.setEncoding('utf8').on('data', sink);
      child.stderr?.setEncoding('utf8').on('data', sink);
      if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      let forced = false;
      let forceEnd: () => void = () => undefined;
      const ended = new Promise<void>((resolve, reject) => {
        child.once('error', (err) =>
          reject(new SwitchboardError('internal', `could not start ${localShell()}: ${err.message}`)),
        );
        child.once('close', () => resolve());
        forceEnd = () => {
          forced = true;
          child.stdout?.destroy();
          child.stderr?.destroy();
          resolve();
        };
      });
      return {
        ended,
        exited: () => exited,
        exitStatus: async () => {
          if (child.exitCode !== null) return { code: child.exitCode };
          if (child.signalCode) return { code: 128 + signalNumber(child.signalCode) };
          return { code: forced ? 137 : 1 };
        },
        // End the group; if something that left the group still holds our pipes, answer anyway a moment later.
        stop: () => void this.end(child).then(() => setTimeout(forceEnd, HELD_PIPES_MS).unref()),
        // The gentle signals are sent when stop returns; a local kill cannot fail in a way the call must say.
        stopReached: async () => undefined,
        detach: () => undefined,
      };
    });
  }

  async openShell(opts: {
    cwd: string;
    cols: number;
    rows: number;
    env?: Record<string, string>;
  }): Promise<ShellChannel> {
    const cwd = await nearestDir(opts.cwd);
    const spec = this.snapshot.spec as PaneShellSpec;
    // The person's own variables for their own shell, after the Core's rules: they wrote them for this pane.
    const env = { ...this.childEnv(opts.env), ...spec.shell_env };
    const words = paneShellWords(spec, process.env.SHELL ?? '/bin/bash', homedir());
    const [shell, ...args] = await resolvePaneShell(words, env.PATH, this.snapshot.name);
    return openPty({ cwd, cols: opts.cols, rows: opts.rows, env, shell, args });
  }

  async spawnBackground(
    command: string,
    opts: { cwd: string; env?: Record<string, string> },
  ): Promise<BackgroundHandle> {
    const cwd = await nearestDir(opts.cwd);
    await this.sandbox?.ready();
    // Inside a sandbox, what the command leaves running (`server &`) would end with the shell (its PID namespace
    // does): the shell waits for it instead, as the process's output does outside, where it holds the pipe.
    const wait = this.sandbox ? SANDBOX_SHELL_EXIT : '';
    const child = this.spawnAgent([localShell(), '-c', `${wait}exec 2>&1\n${command}`], {
      cwd,
      env: this.childEnv(opts.env),
      stdin: 'pipe',
    });
    this.children.add(child);
    child.once('close', () => this.children.delete(child));
    child.stdin?.on('error', () => undefined);
    return {
      onData: (l) => {
        child.stdout?.setEncoding('utf8').on('data', l);
        child.stderr?.setEncoding('utf8').on('data', l);
      },
      onExit: (l) => {
        child.once('error', (err) => l(null, err.message));
        child.once('close', (code, signal) =>
          l(code ?? (signal ? 128 + signalNumber(signal) : null), signal ? `killed by ${signal}` : undefined),
        );
      },
      write: (data) => {
        if (!child.stdin || child.stdin.destroyed)
          throw new SwitchboardError('bad_request', 'the process has closed its stdin');
        child.stdin.write(data);
      },
      kill: () => this.end(child),
    };
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    if (this.files) return this.files.readFile(path, maxBytes);
    const st = await this.stat(path);
    assertReadableFile(path, st, maxBytes);
    return readFile(path);
  }

  async writeFile(path: string, data: Buffer): Promise<void> {
    if (this.files) return this.files.writeFile(path, data);
    await atomicWrite(path, data).catch((err: unknown) => {
      throw err instanceof WriteFailure ? err.toError(path) : err;
    });
  }

  async stat(path: string): Promise<FileStat> {
    if (this.files) return this.files.stat(path);
    try {
      const st = await stat(path);
      return { type: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other', size: st.size };
    } catch {
      // nothing there (or unreadable): missing
      return { type: 'missing', size: 0 };
    }
  }

  async probe(): Promise<{ ok: true; detail?: string }> {
    if (!this.sandbox) return { ok: true, detail: `${localShell()}, unsandboxed (${this.unsandboxed ?? ''})` };
    const missing = this.sandbox.policy.missingWritable;
    return {
      ok: true,
      detail:
        `${localShell()}, sandboxed (${this.sandbox.kind}; ${this.sandbox.limits().describe})` +
        (missing.length ? `; sandbox.writable not found, not bound: ${missing.join(', ')}` : ''),
    };
  }

  async cleanup(reason: 'idle' | 'removed' | 'shutdown'): Promise<void> {
    await Promise.all(
      [...this.children]
        .map((c) => this.end(c))
        .concat(this.warm ? [this.warm.close()] : [], this.files ? [this.files.close()] : []),
    );
    await this.sandbox?.close();
    if (reason === 'removed') this.sandbox?.removeState();
  }
}

/** The directory itself or its nearest existing parent. */
export async function nearestDir(dir: string): Promise<string> {
  let d = dir;
  for (;;) {
    try {
      if ((await stat(d)).isDirectory()) return d;
    } catch {
      /* keep climbing */
    }
    const parent = dirname(d);
    if (parent === d) return '/';
    d = parent;
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  const table: Partial<Record<NodeJS.Signals, number>> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGTERM: 15,
    SIGPIPE: 13,
  };
  return table[signal] ?? 0;
}
