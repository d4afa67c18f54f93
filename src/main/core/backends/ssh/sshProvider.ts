// The SSH backend: commands, panes, background processes and file ops over one pooled ssh2 connection.
// The Environment's methods share the identity's env file, the staged passed-through variables and its warm shells;
// the way to the host is sshLink.ts (auth, dial and the pool beneath it), the channels remoteProcess.ts, where work
// runs sshSandboxFacts.ts, file operations (SFTP, or commands without an sftp subsystem) sshFiles.ts.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { SwitchboardError, errorLine, toErrorPayload } from '../../../../shared/errors.js';
import { splitCommandWords } from '../../../../shared/commandWords.js';
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
import { sshDeclaration } from '../builtinSpecs.js';
import { execWrapped } from '../shell/execWrapped.js';
import { shellQuote } from '../shell/shellWrap.js';
import { commandEnv, envRules } from '../shell/commandEnv.js';
import { SecretExports } from '../shell/secretExports.js';
import type { ExecChannel, LiveConnection } from './liveConnection.js';
import { exportLines, groupCommand, loginShellCommand, warmShellCheck, warmShellCommand } from './remoteCommand.js';
import { NAMESPACE_TAG, SshWarmShells, WarmShellNotStarted } from './sshWarmShells.js';
import { SshFiles } from './sshFiles.js';
import { SshLink } from './sshLink.js';
import { SshSandboxFacts } from './sshSandboxFacts.js';
import { channelRun, groupMarker, killGroup, RemoteProcess } from './remoteProcess.js';
import { settleWithin } from '../../platform/index.js';
import { debugLine } from '../shell/warmShell.js';
import { sshReach } from './sshReach.js';
import type { SandboxSetting } from '../../../../shared/specFields.js';
import { RemoteSandbox, namespaceGroupScript, namespaceKillScript } from '../../sandbox/index.js';
import { SANDBOX_SHELL_EXIT } from '../shell/sandboxShellExit.js';
import { warmPrelude } from '../shell/warmProgram.js';

export const sshProvider: BackendProvider = {
  ...sshDeclaration,
  createEnvironment: (snapshot, ctx) => new SshEnvironment(snapshot, ctx),
  // A TCP connect: logging in to hundreds of hosts a minute would cost each of them a session and an auth log line.
  idleProbe: sshReach,
};

/**
 * Where a runtime identity's exported variables live on the remote host: under the remote user's own home
 * (mode 0700), never a shared /tmp where another user could plant one; the profile is part of the name so two
 * Switchboard profiles with a same-named target do not share variables.
 */
export function remoteEnvFile(identity: string, profile: string): string {
  const digest = createHash('sha256').update(`${profile}\0${identity}`).digest('hex');
  return `~/.cache/switchboard/env-${digest.slice(0, 16)}.sh`;
}

/** The words of an SSH target's `shell`, run as the pane's remote command; undefined: the user's login shell. */
function paneShell(snapshot: TargetSnapshot): { words: [string, ...string[]]; target: string } | undefined {
  const text = (snapshot.spec as { shell?: unknown }).shell;
  if (typeof text !== 'string') return undefined;
  const split = splitCommandWords(text);
  if (!split.ok) throw new SwitchboardError('bad_config', `shell ${split.problem}`);
  return { words: split.words, target: snapshot.name };
}

class SshEnvironment implements Environment {
  readonly identity: string;
  private readonly envFile: string;
  /**
   * Exports that look like credentials: in the Core's memory, never in envFile on the host (shell/secretExports.ts).
   */
  private readonly secrets = new SecretExports();
  /** The way to the target: its route, the pooled connection, its home (sshLink.ts). */
  private readonly link: SshLink;
  private readonly background = new Set<RemoteProcess>();
  private readonly shells = new Set<RemoteProcess>();
  /** This identity's warm shells: calls without stdin run in one when bash is there (sshWarmShells.ts). */
  private readonly warm: SshWarmShells;
  private readonly files: SshFiles;
  /** The sandbox on the host (undefined: `sandbox: off`); what the host offers is asked per connection (facts). */
  private readonly sandbox: RemoteSandbox | undefined;
  /** Where agent work runs on this connection, asked of the host (sshSandboxFacts.ts). */
  private readonly where: SshSandboxFacts;

  constructor(
    private readonly snapshot: TargetSnapshot,
    private readonly ctx: ProviderContext,
  ) {
    this.identity = snapshot.identity;
    this.link = new SshLink(snapshot, ctx);
    const setting = (snapshot.spec as { sandbox?: SandboxSetting }).sandbox;
    const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 16);
    this.sandbox =
      setting === 'off'
        ? undefined
        : new RemoteSandbox({
            setting,
            workspace: snapshot.spec.cwd ?? snapshot.flags.default_cwd ?? '~',
            id: digest(`${ctx.home}\0${snapshot.identity}`),
            cachesId: digest(`${ctx.home}\0${snapshot.name}`),
          });
    this.where = new SshSandboxFacts({
      identity: snapshot.identity,
      setting,
      sandbox: this.sandbox,
      report: (identity, info) => ctx.reportSandbox?.(identity, info),
      renewWarm: () => this.warm.renew(),
    });
    this.envFile = this.sandbox ? this.sandbox.envFile : remoteEnvFile(snapshot.identity, ctx.home);
    this.files = new SshFiles(
      () => this.link.connect(),
      async (live) => {
        const facts = await this.where.facts(live);
        return facts ? (command) => this.sandbox!.wrap(facts, command, { cwd: '/', newSession: true }) : undefined;
      },
    );
    this.warm = new SshWarmShells({
      open: async (live, env) => {
        const facts = await this.where.facts(live);
        // Inside a sandbox, the shell first says which PID namespace it is in: a call's group is found through it.
        const inner = facts
          ? this.sandbox!.wrap(
              facts,
              `printf '${NAMESPACE_TAG}%s\\n' "$(readlink /proc/self/ns/pid)" >&2; exec bash -s`,
              {
                cwd: '/',
                newSession: true,
              },
            )
          : undefined;
        return this.execForwarding(live, env, (e, staged) => warmShellCommand(e, staged, inner), undefined, true);
      },
      hasBash: async (live) => (await live.run(warmShellCheck, { timeoutMs: 15_000 })).exitCode === 0,
      killGroup,
      // Never fails: a group not found (it ended, the connection went) has nothing left to end.
      killInNamespace: async (live, ns, pgid) => {
        const r = await live.run(namespaceGroupScript(ns, pgid), { timeoutMs: 10_000 }).catch(() => undefined);
        const host = Number(r?.output.trim());
        if (Number.isInteger(host) && host > 1) await killGroup(live, host);
      },
      killNamespace: async (live, ns) => {
        await live.run(namespaceKillScript(ns), { timeoutMs: 10_000 }).catch(() => undefined);
      },
      // A shell that is its sandbox's main process waits for what its calls left running (its PID namespace ends with
      // it); one that runs on the host as it is must not (it would wait for every process there).
      prelude: () => (this.where.inSandbox ? SANDBOX_SHELL_EXIT + warmPrelude() : undefined),
      passthrough: () => JSON.stringify(this.ctx.envPassthrough?.() ?? []),
    });
  }

  /**
   * Opens an exec channel for a process the Core starts on the host. The host keeps its own environment; from the
   * Core come only Switchboard's own additions (inline) and the names a person passed through, cleared by the same
   * rules as every backend's. Passed-through values go in a 0600 file under ~/.cache/switchboard that the remote
   * shell reads and deletes, never on the command line, which every user of the host can read.
   */
  private async execForwarding(
    live: LiveConnection,
    extra: Record<string, string> | undefined,
    build: (env: Record<string, string>, staged: string | undefined) => string,
    pty?: { cols: number; rows: number },
    idle = false,
    secrets: Record<string, string> = {},
  ): Promise<ExecChannel> {
    const rules = envRules(this.snapshot.flags.strip_env_keys, this.ctx);
    const env = commandEnv(rules, { inherit: 'passthrough', extra, source: {} });
    // The identity's secret exports travel as passed-through credentials do: staged in a private file, read and
    // removed.
    const passed = { ...commandEnv(rules, { inherit: 'passthrough' }), ...secrets };
    const staged = Object.keys(passed).length ? await this.stage(exportLines(passed)) : undefined;
    try {
      return await live.exec(build(env, staged), pty, idle);
    } catch (err) {
      // Best effort: the channel that would have read and removed it did not open; the next may not either.
      if (staged) void this.files.remove(staged).catch(() => undefined);
      throw err;
    }
  }

  home(): Promise<string> {
    return this.link.home();
  }

  /** Writes text to a new private file in ~/.cache/switchboard (0700) with mode 0600; returns its path. */
  private async stage(text: string): Promise<string> {
    return this.files.stage(posix.join(await this.link.home(), '.cache', 'switchboard'), text);
  }

  async exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    const cwd = await this.link.absolute(opts.cwd);
    const live = await this.link.connect();
    const facts = opts.outsideSandbox ? undefined : await this.where.facts(live);
    const shell =
      !opts.outsideSandbox && (await this.warm.usable(live, command, opts)) ? this.warm.take(live, opts) : undefined;
    debugLine(`exec on ${this.identity} in ${shell ? 'a warm shell' : 'a shell of its own'}`);
    if (shell) {
      // The call's own variables (run markers), withheld names dropped as for any channel.
      // The identity's secret exports go in the call's text (the warm shell's stdin, never a command line).
      const exports = {
        ...commandEnv(envRules(this.snapshot.flags.strip_env_keys, this.ctx), {
          inherit: 'passthrough',
          extra: opts.env,
          source: {},
        }),
        ...this.secrets.env(),
      };
      const { wrap, start } = this.warm.run(live, shell, command, exports);
      try {
        return await execWrapped(command, { ...opts, cwd, envFile: this.envFile, secrets: this.secrets, wrap }, start);
      } catch (err) {
        if (!(err instanceof WarmShellNotStarted)) throw err;
        debugLine(`the warm shell on ${this.identity} did not open; the call runs in a shell of its own`);
      }
    }
    // A call let out of the sandbox runs what the person approved and nothing else: not the exports of the sandbox.
    const carried = opts.outsideSandbox ? { envFile: undefined } : { envFile: this.envFile, secrets: this.secrets };
    return execWrapped(command, { ...opts, cwd, ...carried }, async (script, sink) => {
      const gm = groupMarker();
      const opened = await this.execForwarding(
        live,
        opts.env,
        (env, staged) =>
          groupCommand(facts ? this.sandbox!.wrap(facts, script, { cwd: '/', newSession: true }) : script, {
            marker: gm,
            env,
            staged,
          }),
        undefined,
        false,
        this.secrets.env(),
      );
      return channelRun(live, opened, gm, opts.stdin, sink);
    });
  }

  async openShell(opts: {
    cwd: string;
    cols: number;
    rows: number;
    env?: Record<string, string>;
  }): Promise<ShellChannel> {
    const cwd = await this.link.absolute(opts.cwd);
    const live = await this.link.connect();
    const shell = paneShell(this.snapshot);
    const opened = await this.execForwarding(
      live,
      opts.env,
      (env, staged) => loginShellCommand(cwd, env, staged, shell),
      {
        cols: opts.cols,
        rows: opts.rows,
      },
    );
    const channel = opened.channel;
    const proc = new RemoteProcess(opened, live, undefined);
    this.shells.add(proc);
    proc.onExit(() => this.shells.delete(proc));
    return {
      onData: (l) => proc.onData(l),
      onExit: (l) => proc.onExit(l),
      write: (data) => {
        if (!proc.exited) channel.write(data);
      },
      resize: (cols, rows) => {
        if (!proc.exited) channel.setWindow(rows, cols, 0, 0);
      },
      pause: () => channel.pause(),
      resume: () => channel.resume(),
      // Closing a pty session makes sshd hang up the shell's terminal, which ends its jobs.
      kill: () => {
        if (!proc.exited) channel.close();
      },
    };
  }

  async spawnBackground(
    command: string,
    opts: { cwd: string; env?: Record<string, string> },
  ): Promise<BackgroundHandle> {
    const cwd = await this.link.absolute(opts.cwd);
    const live = await this.link.connect();
    const facts = await this.where.facts(live);
    const gm = groupMarker();
    const body = `exec 2>&1\n${command}`;
    const opened = await this.execForwarding(live, opts.env, (env, staged) =>
      groupCommand(facts ? this.sandbox!.wrap(facts, body, { cwd, newSession: true }) : body, {
        marker: gm,
        cwd,
        env,
        staged,
      }),
    );
    const channel = opened.channel;
    const proc = new RemoteProcess(opened, live, gm);
    this.background.add(proc);
    proc.onExit(() => this.background.delete(proc));
    return {
      onData: (l) => proc.onData(l),
      onExit: (l) => proc.onExit(l),
      write: (data) => {
        if (proc.exited || !channel.writable)
          throw new SwitchboardError('bad_request', 'the process has closed its stdin');
        channel.write(data);
      },
      kill: () => proc.kill(),
    };
  }

  readFile(path: string, maxBytes: number): Promise<Buffer> {
    return this.files.readFile(path, maxBytes);
  }

  writeFile(path: string, data: Buffer): Promise<void> {
    return this.files.writeFile(path, data);
  }

  stat(path: string): Promise<FileStat> {
    return this.files.stat(path);
  }

  async probe(): Promise<{ ok: true; detail?: string } | { ok: false; problem: string }> {
    try {
      const live = await this.link.connect();
      const r = await live.run('true', { timeoutMs: 10_000 });
      if (r.exitCode !== 0) return { ok: false, problem: `\`true\` exited ${r.exitCode} on ${live.label}` };
      // Asked once per connection; a session the server would not open now (MaxSessions) is no news about SFTP.
      const commands = await this.files.usesCommands().catch(() => false);
      // Where agent work runs there is asked on each new connection (and told the Core: TargetInfo.sandbox).
      await this.where.facts(live).catch(() => undefined);
      return { ok: true, detail: commands ? `${live.label}; no sftp subsystem; file tools use commands` : live.label };
    } catch (err) {
      const e = toErrorPayload(err);
      // The server answered with a key nobody trusted yet: it is up, and the first real connection asks about it.
      if (e.code === 'host_key_unknown')
        return {
          ok: true,
          detail: `${this.link.label ?? this.identity}: host key not trusted yet; the first connection asks`,
        };
      return { ok: false, problem: errorLine(e) };
    }
  }

  async cleanup(reason: 'idle' | 'removed' | 'shutdown'): Promise<void> {
    // Background groups survive a closed channel on the server, so they are killed explicitly; so do warm calls'.
    await Promise.all(
      [...this.background]
        .map((p) =>
          p.kill().catch((err: unknown) => this.ctx.log?.for('ssh').warn(`${this.identity}: kill failed`, err)),
        )
        .concat([
          this.warm
            .close()
            .catch((err: unknown) =>
              this.ctx.log?.for('ssh').warn(`${this.identity}: closing warm shells failed`, err),
            ),
        ]),
    );
    if (reason === 'removed' && this.link.leased) {
      // The identity is gone for good: so are its saved variables (best effort; the host may be down).
      const file = this.envFile.replace(/^~\//, '');
      // A sandboxed identity's exports are in its private /tmp, which goes whole (by the Core, outside the sandbox).
      const gone = this.sandbox
        ? this.link.connect().then((live) => live.run(this.sandbox!.removeScript(), { timeoutMs: 3000 }))
        : this.exec(`rm -f "$HOME"/${shellQuote(file)}`, { cwd: '/', timeoutMs: 3000, maxOutputChars: 1000 });
      // Best effort: the host may be down; the file holds no secrets.
      await settleWithin(
        gone.catch(() => undefined),
        3500,
      );
    }
    for (const s of this.shells) s.close();
    await this.link.release();
  }
}
