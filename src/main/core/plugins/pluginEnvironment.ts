// The Core's Environment for a target of a plugin backend: every call crosses the plugin host's RPC with a deadline.
import { createHash, randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../../shared/errors.js';
import type { EnvCapabilities } from '../../../shared/pluginRpc.js';
import {
  type BackgroundHandle,
  type Environment,
  type ExecOptions,
  type ExecResult,
  type FileStat,
  type ProviderContext,
  type ShellChannel,
  type TargetSnapshot,
  execWrapped,
  type ShellRun,
  commandEnv,
  envRules,
  execHome,
  execReadFile,
  execStat,
  execWriteFile,
  type RawExec,
  SecretExports,
  assertWithinReadLimit,
} from '../backends/index.js';
import type { PluginHost } from './pluginHost.js';

/** What an environment needs of its plugin: the running host (or why there is none). */
export interface PluginLink {
  readonly plugin: string;
  /** The host to call, or throws target_unreachable naming the plugin and why. */
  host(): PluginHost;
}

/** How long past a command's own timeout the plugin may take to answer before it counts as hung. */
export const execMarginMs = 10_000;
const callMs = { create: 60_000, file: 60_000, probe: 15_000, stream: 10_000, cleanup: 15_000 };

export class PluginEnvironment implements Environment {
  readonly identity: string;
  private live: { host: PluginHost; generation: number; envId: string; caps: EnvCapabilities } | undefined;
  private creating: Promise<{ host: PluginHost; envId: string; caps: EnvCapabilities }> | undefined;
  private readonly envFile: string;
  /**
   * Exports that look like credentials: in the Core's memory, never in envFile on the target
   * (backends/shell/secretExports.ts).
   */
  private readonly secretExports = new SecretExports();
  private homeDir: string | undefined;

  /**
   * `secretRefKeys`: the backend's secret_ref fields; the variables they name are handed to the plugin (only those).
   */
  constructor(
    private readonly snapshot: TargetSnapshot,
    private readonly ctx: ProviderContext,
    private readonly link: PluginLink,
    private readonly secretRefKeys: readonly string[] = [],
  ) {
    this.identity = snapshot.identity;
    const id = createHash('sha256').update(`${ctx.home}\0${snapshot.identity}`).digest('hex').slice(0, 16);
    this.envFile = `${snapshot.flags.cache_path_base.replace(/\/+$/, '')}/env-${id}.sh`;
  }

  /** The plugin's environment in the current host, created on first use and again after the host restarted. */
  private async ready(): Promise<{ host: PluginHost; envId: string; caps: EnvCapabilities }> {
    const host = this.link.host();
    if (this.live && this.live.host === host && this.live.generation === host.generation) return this.live;
    this.creating ??= (async () => {
      const envId = `${this.identity}/${randomUUID()}`;
      const generation = host.generation;
      try {
        const caps = await host.call(
          'create_environment',
          {
            backend: this.snapshot.spec.backend,
            env_id: envId,
            cwd: this.snapshot.spec.cwd ?? this.snapshot.flags.default_cwd,
            timeout: this.snapshot.timeoutSec,
            runtime_identity: this.identity,
            spec: { ...this.snapshot.spec },
            secrets: secretsOf(this.snapshot.spec, this.secretRefKeys),
          },
          callMs.create,
        );
        this.live = { host, generation, envId, caps };
        this.ctx.reportReachability?.(this.identity, undefined);
        return this.live;
      } catch (err) {
        this.ctx.reportReachability?.(this.identity, err instanceof Error ? err.message : String(err));
        throw err;
      } finally {
        this.creating = undefined;
      }
    })();
    return this.creating;
  }

  /**
   * What a command started here is handed: the Core's environment minus withheld names (a remote one gets passthrough
   * only).
   */
  private childEnv(extra: Record<string, string> | undefined): Record<string, string> {
    return commandEnv(envRules(this.snapshot.flags.strip_env_keys, this.ctx), {
      inherit: this.snapshot.flags.is_remote ? 'passthrough' : 'all',
      extra,
    });
  }

  /** One command through the plugin's exec, as given (file fallbacks and home use it). */
  private readonly raw: RawExec = async (command, opts) => {
    const { host, envId } = await this.ready();
    const r = await host.call(
      'exec',
      {
        env_id: envId,
        command,
        cwd: '/',
        timeout_ms: opts.timeoutMs,
        env: this.childEnv(undefined),
        ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
      },
      opts.timeoutMs + execMarginMs,
    );
    return { output: r.output, exitCode: r.exit_code };
  };

  async home(): Promise<string> {
    if (this.homeDir) return this.homeDir;
    const { host, envId, caps } = await this.ready();
    this.homeDir = caps.home ? await host.call('home', { env_id: envId }, callMs.file) : await execHome(this.raw);
    return this.homeDir;
  }

  /**
   * The Core's shell kit wraps the command (cwd tracking, the identity's exports, the marker line) and caps the
   * output; the plugin runs the wrapped script with `sh -c` in `/`. A plugin that does not answer within the
   * command's timeout plus a margin is taken for hung: the call fails naming it and its host is restarted.
   */
  async exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    const { host, envId } = await this.ready();
    return execWrapped(
      command,
      { ...opts, envFile: this.envFile, secrets: this.secretExports },
      async (script, sink) => {
        let code = 1;
        let timedOut = false;
        let cancelled: () => void = () => undefined;
        const cancel = new Promise<void>((resolve) => (cancelled = resolve));
        const answered = host
          .call(
            'exec',
            {
              env_id: envId,
              command: script,
              cwd: '/',
              timeout_ms: opts.timeoutMs,
              env: { ...this.childEnv(opts.env), ...this.secretExports.env() },
              ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
            },
            opts.timeoutMs + execMarginMs,
          )
          .then((r) => {
            sink(r.output);
            code = r.timed_out ? 124 : r.exit_code;
            timedOut = r.timed_out === true;
          });
        answered.catch(() => undefined); // awaited through the race below; this keeps it from being unhandled
        const ended = Promise.race([answered, cancel]);
        const run: ShellRun = {
          ended,
          // The exit is what is waited for; the error reaches the caller through `ended`.
          exited: () => ended.catch(() => undefined),
          exitStatus: async () => (timedOut ? { code, timedOut } : { code }),
          // On timeout the plugin ends the command itself (timeout_ms); its late answer, or its deadline, ends the
          // call. A cancel does not wait for it: the plugin's exec finishes on its own and its answer is dropped.
          stop: () => {
            if (opts.signal?.aborted) {
              code = 130;
              cancelled();
            }
          },
          detach: () => undefined,
        };
        return run;
      },
    );
  }

  async openShell(opts: {
    cwd: string;
    cols: number;
    rows: number;
    env?: Record<string, string>;
  }): Promise<ShellChannel> {
    const { host, envId, caps } = await this.ready();
    if (!caps.open_shell || !this.snapshot.flags.supports_streams) {
      throw new SwitchboardError('unsupported', `target "${this.snapshot.name}": no interactive shell on this backend`);
    }
    const streamId = randomUUID();
    const stream = this.streamOver(host, streamId);
    await host.call(
      'open_shell',
      {
        env_id: envId,
        stream_id: streamId,
        cwd: opts.cwd,
        cols: opts.cols,
        rows: opts.rows,
        env: this.childEnv(opts.env),
      },
      callMs.create,
    );
    return {
      ...stream,
      resize: (cols, rows) =>
        // A resize racing the stream's end: nothing to resize.
        void host.call('stream.resize', { stream_id: streamId, cols, rows }, callMs.stream).catch(() => undefined),
      pause: () => undefined,
      resume: () => undefined,
      kill: () => void stream.kill(),
    };
  }

  async spawnBackground(
    command: string,
    opts: { cwd: string; env?: Record<string, string> },
  ): Promise<BackgroundHandle> {
    const { host, envId, caps } = await this.ready();
    if (!caps.spawn_background) {
      throw new SwitchboardError(
        'unsupported',
        `target "${this.snapshot.name}": no background processes on this backend (plugin ${this.link.plugin} ` +
          `has no spawn_background)`,
        'run the command in the foreground with a timeout',
      );
    }
    const streamId = randomUUID();
    const stream = this.streamOver(host, streamId);
    await host.call(
      'spawn_background',
      { env_id: envId, stream_id: streamId, command, cwd: opts.cwd, env: this.childEnv(opts.env) },
      callMs.create,
    );
    return stream;
  }

  /** A stream's output and exit, routed from the host from now on (so no early byte is missed). */
  private streamOver(host: PluginHost, streamId: string): BackgroundHandle {
    const data: Array<(d: string) => void> = [];
    const exits: Array<(code: number | null, reason?: string) => void> = [];
    const early: string[] = [];
    let ended: { code: number | null; reason?: string } | undefined;
    host.watchStream(streamId, {
      data: (d) => (data.length > 0 ? data.forEach((l) => l(d)) : early.push(d)),
      exit: (code, reason) => {
        ended = { code, ...(reason ? { reason } : {}) };
        exits.forEach((l) => l(code, reason));
      },
    });
    return {
      onData: (l) => {
        data.push(l);
        for (const d of early.splice(0)) l(d);
      },
      onExit: (l) => {
        exits.push(l);
        if (ended) l(ended.code, ended.reason);
      },
      write: (d) =>
        // The stream ended: its exit says why.
        void host.call('stream.write', { stream_id: streamId, data: d }, callMs.stream).catch(() => undefined),
      kill: async () => {
        // The stream ended already: nothing left to kill.
        await host.call('stream.kill', { stream_id: streamId }, callMs.stream).catch(() => undefined);
      },
    };
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    const { host, envId, caps } = await this.ready();
    if (!caps.read_file) return execReadFile(this.raw, path, maxBytes);
    const st = caps.stat ? await this.stat(path) : undefined;
    if (st) assertWithinReadLimit(path, st.size, maxBytes);
    const r = await host.call('file.read', { env_id: envId, path, max_bytes: maxBytes }, callMs.file);
    return Buffer.from(r.base64, 'base64');
  }

  async writeFile(path: string, data: Buffer): Promise<void> {
    const { host, envId, caps } = await this.ready();
    if (!caps.write_file) return execWriteFile(this.raw, path, data);
    await host.call('file.write', { env_id: envId, path, base64: data.toString('base64') }, callMs.file);
  }

  async stat(path: string): Promise<FileStat> {
    const { host, envId, caps } = await this.ready();
    if (!caps.stat) return execStat(this.raw, path);
    return host.call('file.stat', { env_id: envId, path }, callMs.file);
  }

  async probe(): Promise<{ ok: true; detail?: string } | { ok: false; problem: string }> {
    try {
      const { host, envId, caps } = await this.ready();
      if (caps.probe) return await host.call('probe', { env_id: envId }, callMs.probe);
      const r = await this.raw('echo ok', { timeoutMs: callMs.probe });
      return r.exitCode === 0
        ? { ok: true, detail: `plugin ${this.link.plugin}` }
        : { ok: false, problem: `echo failed: ${r.output.trim().slice(0, 200)}` };
    } catch (err) {
      return { ok: false, problem: err instanceof Error ? err.message : String(err) };
    }
  }

  async cleanup(reason: 'idle' | 'removed' | 'shutdown'): Promise<void> {
    const live = this.live;
    this.live = undefined;
    if (!live || live.generation !== live.host.generation || !live.host.running) return;
    await live.host
      .call('cleanup', { env_id: live.envId, reason }, callMs.cleanup)
      .catch((err: unknown) => this.ctx.log?.for(this.link.plugin).warn(`cleanup of ${this.identity} failed`, err));
  }
}

/**
 * The values of the variables a target's secret_ref fields name (`token_env: SANDBOX_API_TOKEN`), read from the
 * Core's environment now: the plugin host starts without anything that looks like a credential, so this is how a
 * plugin gets the one secret its target points at, and no other.
 */
export function secretsOf(
  spec: Readonly<Record<string, unknown>>,
  secretRefKeys: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of secretRefKeys) {
    const name = spec[key];
    const value = typeof name === 'string' ? process.env[name] : undefined;
    if (typeof name === 'string' && value !== undefined) out[name] = value;
  }
  return out;
}
