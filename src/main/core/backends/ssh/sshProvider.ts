// The SSH backend: commands, panes, background processes and file ops over one pooled ssh2 connection.
// Over 350 lines: the Environment's methods share the pooled connection, the identity's env file and the staged
// passed-through variables; auth, dial and the pool live in sshAuth.ts, dial.ts, liveConnection.ts and
// connectionPool.ts, file operations (SFTP, or commands where the server has no sftp subsystem) in sshFiles.ts.
import { createHash, randomBytes } from 'node:crypto';
import { homedir, userInfo } from 'node:os';
import { posix } from 'node:path';
import { SshSpec } from './fields.js';
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
import { connectionPool, type SshLease } from './connectionPool.js';
import type { ExecChannel, LiveConnection } from './liveConnection.js';
import { exportLines, groupCommand, loginShellCommand, warmShellCheck, warmShellCommand } from './remoteCommand.js';
import { NAMESPACE_TAG, SshWarmShells, WarmShellNotStarted } from './sshWarmShells.js';
import { SshFiles } from './sshFiles.js';
import { endGroupScript, tracked, settleWithin } from '../../platform/index.js';
import { GroupHead } from './groupHead.js';
import { debugLine } from '../shell/warmShell.js';
import { loadSshConfig } from './sshConfig.js';
import { resolveRoute, type SshHop } from './sshRoute.js';
import { sshReach } from './sshReach.js';
import { exitReasons } from '../../../../shared/exitReasons.js';
import type { SandboxSetting } from '../../../../shared/specFields.js';
import {
  RemoteSandbox,
  namespaceGroupScript,
  namespaceKillScript,
  parseFacts,
  type RemoteFacts,
  remoteSandboxInfo,
  mountSignature,
} from '../../sandbox/index.js';
import type { SandboxInfo } from '../../../../shared/targets.js';
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

const groupMarker = (): string => `__SB_PGID_${randomBytes(6).toString('hex')}__`;

/** How long what the host offers the sandbox is taken as known on one connection. */
const SANDBOX_FACTS_MS = 2000;

/**
 * A stopped or killed remote command: how long its channel may take to end after the kill, then after our own close,
 * before the call is ended without it.
 */
const killGraceMs = 3000;
const closeGraceMs = 1000;

function unrefDelay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

class SshEnvironment implements Environment {
  readonly identity: string;
  private readonly envFile: string;
  /**
   * Exports that look like credentials: in the Core's memory, never in envFile on the host (shell/secretExports.ts).
   */
  private readonly secrets = new SecretExports();
  private lease: SshLease | undefined;
  private route: Promise<SshHop[]> | undefined;
  private homeDir: Promise<string> | undefined;
  private readonly background = new Set<RemoteProcess>();
  private readonly shells = new Set<RemoteProcess>();
  /** This identity's warm shells: calls without stdin run in one when bash is there (sshWarmShells.ts). */
  private readonly warm: SshWarmShells;
  private readonly files: SshFiles;
  /** The sandbox on the host (undefined: `sandbox: off`); what the host offers is asked per connection (facts). */
  private readonly sandbox: RemoteSandbox | undefined;
  private sandboxFacts: { live: LiveConnection; at: number; facts: Promise<RemoteFacts> } | undefined;
  /** The sandbox's mounts the warm shells were started with: a change retires them. */
  private warmMounts: string | undefined;
  /** Whether runs on this connection start in the sandbox (as of the last facts). */
  private inSandbox = false;
  /** What was last told the Core of where work runs (JSON), so that it hears a change once. */
  private reported: string | undefined;
  private readonly setting: SandboxSetting | undefined;

  constructor(
    private readonly snapshot: TargetSnapshot,
    private readonly ctx: ProviderContext,
  ) {
    this.identity = snapshot.identity;
    const setting = (snapshot.spec as { sandbox?: SandboxSetting }).sandbox;
    this.setting = setting;
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
    this.envFile = this.sandbox ? this.sandbox.envFile : remoteEnvFile(snapshot.identity, ctx.home);
    this.files = new SshFiles(
      () => this.connect(),
      async (live) => {
        const facts = await this.facts(live);
        return facts ? (command) => this.sandbox!.wrap(facts, command, { cwd: '/', newSession: true }) : undefined;
      },
    );
    this.warm = new SshWarmShells({
      open: async (live, env) => {
        const facts = await this.facts(live);
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
      prelude: () => (this.inSandbox ? SANDBOX_SHELL_EXIT + warmPrelude() : undefined),
      passthrough: () => JSON.stringify(this.ctx.envPassthrough?.() ?? []),
    });
  }

  /** Tells the Core where this target's agent work runs (TargetInfo.sandbox), when that changed. */
  private report(info: SandboxInfo | undefined): void {
    if (!info) return;
    const said = JSON.stringify(info);
    if (said === this.reported) return;
    this.reported = said;
    this.ctx.reportSandbox?.(this.identity, info);
  }

  /**
   * What the host offers the sandbox, asked in one round trip and kept for SANDBOX_FACTS_MS on one connection (a new
   * connection asks again: a host that lost bubblewrap is noticed at the next connect). Undefined: this target runs
   * unsandboxed (`sandbox: off`, or the host cannot run one: TargetInfo and the probe say why).
   */
  private async facts(live: LiveConnection): Promise<RemoteFacts | undefined> {
    if (!this.sandbox) {
      this.report(remoteSandboxInfo('off', undefined, live.label));
      return undefined;
    }
    const now = Date.now();
    const kept = this.sandboxFacts;
    if (!kept || kept.live !== live || now - kept.at > SANDBOX_FACTS_MS) {
      const facts = live.run(this.sandbox.probe(), { timeoutMs: 30_000 }).then((r) => parseFacts(r.output));
      this.sandboxFacts = { live, at: now, facts };
      facts.catch(() => {
        if (this.sandboxFacts?.facts === facts) this.sandboxFacts = undefined;
      });
    }
    const facts = await this.sandboxFacts!.facts;
    const usable = facts.bwrap.ok && !!facts.home && !!facts.arch;
    this.report(remoteSandboxInfo(this.setting, facts, live.label));
    if (usable !== this.inSandbox) {
      // Shells started in the sandbox, or without it, are not what the next call should get.
      this.warm.renew();
      this.inSandbox = usable;
    }
    if (!usable) return undefined;
    // Shells started with other mounts (a credential file or a repository since) go; the next call gets new ones.
    const mounts = mountSignature(this.sandbox.policy(facts));
    if (mounts !== this.warmMounts) {
      if (this.warmMounts !== undefined) this.warm.renew();
      this.warmMounts = mounts;
    }
    return facts;
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

  /** Writes text to a new private file in ~/.cache/switchboard (0700) with mode 0600; returns its path. */
  private async stage(text: string): Promise<string> {
    return this.files.stage(posix.join(await this.home(), '.cache', 'switchboard'), text);
  }

  /** The hops to the target, read once: spec, ~/.ssh/config aliases, the ssh_jump chain. */
  private resolve(): Promise<SshHop[]> {
    this.route ??= (async () => {
      const spec = SshSpec.safeParse(this.snapshot.spec);
      if (!spec.success)
        throw new SwitchboardError(
          'bad_config',
          `target "${this.snapshot.name}" is not a valid SSH target`,
          'check its ssh_* keys',
        );
      const home = homedir();
      const sshConfig = await loadSshConfig(home);
      return resolveRoute(this.snapshot.name, spec.data, {
        resolveSpec: (name) => this.ctx.resolveSpec(name),
        sshConfig,
        local: { home, user: userInfo().username },
      });
    })();
    this.route.catch(() => {
      // the next call resolves the route again; this one's callers get the error
      this.route = undefined;
    });
    return this.route;
  }

  private async connect(): Promise<LiveConnection> {
    const hops = await this.resolve();
    this.lease ??= connectionPool.lease(hops, { identity: this.identity, ctx: this.ctx });
    return this.lease.connect();
  }

  async home(): Promise<string> {
    this.homeDir ??= (async () => {
      const live = await this.connect();
      const r = await live.run('printf %s "$HOME"', { timeoutMs: 15_000 });
      if (r.exitCode !== 0 || !r.output.startsWith('/')) {
        throw new SwitchboardError(
          'target_unreachable',
          `could not read $HOME on ${live.label}`,
          'the remote account needs a home directory',
        );
      }
      return r.output;
    })();
    this.homeDir.catch(() => {
      // the next call asks again; this one's callers get the error
      this.homeDir = undefined;
    });
    return this.homeDir;
  }

  /** `~` and `~/x` mean the remote home (specs may say `cwd: ~/project`). */
  private async absolute(path: string): Promise<string> {
    if (path === '~') return this.home();
    if (path.startsWith('~/')) return posix.join(await this.home(), path.slice(2));
    return path;
  }

  async exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    const cwd = await this.absolute(opts.cwd);
    const live = await this.connect();
    const facts = opts.outsideSandbox ? undefined : await this.facts(live);
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
      const { channel, exitCode: reportedExit } = await this.execForwarding(
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
      let stopRequested = false;
      let killSent = false;
      const killNow = (): void => {
        if (killSent || head.pgid === undefined) return;
        killSent = true;
        void killGroup(live, head.pgid);
      };
      const head = new GroupHead(gm, () => {
        if (stopRequested) killNow();
      });
      channel.setEncoding('utf8');
      channel.stderr.setEncoding('utf8');
      channel.on('data', (text: string) => {
        const out = head.take(text);
        if (out) sink(out);
      });
      channel.stderr.on('data', sink);
      // The exit status comes when the shell exits, before the channel closes if a `cmd &` holds its output.
      const exited = new Promise<void>((resolve) => {
        if (reportedExit() !== undefined) resolve();
        channel.once('exit', () => resolve());
        channel.once('close', () => resolve());
      });
      let forceEnd: () => void = () => undefined;
      let offLost: () => void = () => undefined;
      const ended = new Promise<void>((resolve, reject) => {
        forceEnd = resolve;
        // A connection lost after we asked to stop ends the call as stopped, not as an error.
        offLost = live.onLost((err) => (stopRequested ? resolve() : reject(err)));
        channel.once('close', () => resolve());
      }).finally(() => offLost());
      ended.catch(() => undefined); // awaited by the caller through `ended`; this keeps it from being unhandled
      if (opts.stdin !== undefined) channel.end(opts.stdin);
      else channel.end();
      return {
        ended,
        exited: () => exited,
        exitStatus: async () => {
          const code = reportedExit();
          if (code === undefined && !live.isAlive) throw live.lostError();
          return { code: code ?? 255 };
        },
        stop: () => {
          if (stopRequested) return;
          stopRequested = true;
          killNow();
          // Whatever the remote side does, the call ends: close our channel, then give up waiting.
          void unrefDelay(killGraceMs).then(() => {
            channel.close();
            return unrefDelay(closeGraceMs).then(() => forceEnd());
          });
        },
        // The channel stays open until a background child lets go of it; its output is no longer the call's.
        detach: () => {
          offLost();
          const held = head.release();
          if (held) sink(held);
        },
        // A connection lost after the stop ends the call as stopped (above): it cannot fail after the stop.
        stopReached: async () => undefined,
      };
    });
  }

  async openShell(opts: {
    cwd: string;
    cols: number;
    rows: number;
    env?: Record<string, string>;
  }): Promise<ShellChannel> {
    const cwd = await this.absolute(opts.cwd);
    const live = await this.connect();
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
    const cwd = await this.absolute(opts.cwd);
    const live = await this.connect();
    const facts = await this.facts(live);
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
      const live = await this.connect();
      const r = await live.run('true', { timeoutMs: 10_000 });
      if (r.exitCode !== 0) return { ok: false, problem: `\`true\` exited ${r.exitCode} on ${live.label}` };
      // Asked once per connection; a session the server would not open now (MaxSessions) is no news about SFTP.
      const commands = await this.files.usesCommands().catch(() => false);
      // Where agent work runs there is asked on each new connection (and told the Core: TargetInfo.sandbox).
      await this.facts(live).catch(() => undefined);
      return { ok: true, detail: commands ? `${live.label}; no sftp subsystem; file tools use commands` : live.label };
    } catch (err) {
      const e = toErrorPayload(err);
      // The server answered with a key nobody trusted yet: it is up, and the first real connection asks about it.
      if (e.code === 'host_key_unknown')
        return {
          ok: true,
          detail: `${this.lease?.label ?? this.identity}: host key not trusted yet; the first connection asks`,
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
    if (reason === 'removed' && this.lease) {
      // The identity is gone for good: so are its saved variables (best effort; the host may be down).
      const file = this.envFile.replace(/^~\//, '');
      // A sandboxed identity's exports are in its private /tmp, which goes whole (by the Core, outside the sandbox).
      const gone = this.sandbox
        ? this.connect().then((live) => live.run(this.sandbox!.removeScript(), { timeoutMs: 3000 }))
        : this.exec(`rm -f "$HOME"/${shellQuote(file)}`, { cwd: '/', timeoutMs: 3000, maxOutputChars: 1000 });
      // Best effort: the host may be down; the file holds no secrets.
      await settleWithin(
        gone.catch(() => undefined),
        3500,
      );
    }
    for (const s of this.shells) s.close();
    const lease = this.lease;
    this.lease = undefined;
    this.homeDir = undefined;
    await lease?.release();
  }
}

/** End a remote process group gently (endGently.ts) over a second channel of the same connection. Tracked. */
function killGroup(live: LiveConnection, pgid: number): Promise<void> {
  if (!live.isAlive) return Promise.resolve();
  return tracked(
    live.run(endGroupScript(pgid), { timeoutMs: 10_000 }).then(
      () => undefined,
      () => undefined,
    ),
  );
}

/** A long-lived channel (pane or background process): buffered data until someone listens, one exit. */
class RemoteProcess {
  private readonly dataListeners: Array<(d: string) => void> = [];
  private readonly exitListeners: Array<(code: number | null, reason?: string) => void> = [];
  private pending: string[] = [];
  private exitInfo: { code: number | null; reason: string | undefined } | undefined;
  private readonly head: GroupHead;
  private readonly offLost: () => void;

  private readonly channel: ExecChannel['channel'];

  constructor(
    opened: ExecChannel,
    private readonly live: LiveConnection,
    marker: string | undefined,
  ) {
    const channel = opened.channel;
    this.channel = channel;
    this.head = new GroupHead(marker);
    channel.setEncoding('utf8');
    channel.stderr.setEncoding('utf8');
    channel.on('data', (text: string) => this.take(text));
    channel.stderr.on('data', (text: string) => this.emitData(text));
    channel.on('close', () => {
      const code = opened.exitCode();
      if (!this.live.isAlive && code === undefined) this.emitExit(null, exitReasons.connectionLost);
      else this.emitExit(code ?? null, code === undefined ? 'channel closed' : undefined);
    });
    this.offLost = live.onLost(() => this.emitExit(null, exitReasons.connectionLost));
  }

  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  onData(listener: (d: string) => void): void {
    this.dataListeners.push(listener);
    const queued = this.pending;
    this.pending = [];
    for (const d of queued) listener(d);
  }

  onExit(listener: (code: number | null, reason?: string) => void): void {
    const info = this.exitInfo;
    if (info) queueMicrotask(() => listener(info.code, info.reason));
    else this.exitListeners.push(listener);
  }

  close(): void {
    if (!this.exited) this.channel.close();
  }

  /** Kill the whole remote group, then wait (bounded) for the channel to end. */
  async kill(): Promise<void> {
    if (this.exited) return;
    const ended = new Promise<void>((resolve) => this.onExit(() => resolve()));
    if (this.head.pgid !== undefined) await killGroup(this.live, this.head.pgid);
    else this.channel.close();
    await settleWithin(ended, killGraceMs);
    if (!this.exited) {
      this.channel.close();
      await settleWithin(ended, closeGraceMs);
    }
  }

  private take(text: string): void {
    const out = this.head.take(text);
    if (out) this.emitData(out);
  }

  private emitData(text: string): void {
    if (this.dataListeners.length === 0) this.pending.push(text);
    else for (const l of this.dataListeners) l(text);
  }

  private emitExit(code: number | null, reason: string | undefined): void {
    if (this.exitInfo) return;
    this.exitInfo = { code, reason };
    this.offLost();
    for (const l of this.exitListeners.splice(0)) l(code, reason);
  }
}
