// The Docker backend: one managed (or attached) container per runtime identity, driven only through the Engine API.
// The container's lifecycle (containerLifecycle), jobs (dockerJobs), files (containerFiles) and engine deadlines
// (engineCalls) live beside it; this file is the Environment's methods over them.
// Over 380 lines: the Environment's methods, one per thing a target does, over the one container they share.
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import type Docker from 'dockerode';
import type { Container, ContainerInspectInfo } from 'dockerode';
import { DockerSpec } from './fields.js';
import { dockerDeclaration } from '../builtinSpecs.js';
import { SwitchboardError, formatZodError } from '../../../../shared/errors.js';
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
import { execWrapped } from '../shell/execWrapped.js';
import { shellQuote } from '../shell/shellWrap.js';
import { envRules } from '../shell/commandEnv.js';
import { SecretExports } from '../shell/secretExports.js';
import { ContainerFiles } from './containerFiles.js';
import { ContainerLifecycle, engineGone } from './containerLifecycle.js';
import {
  enterDirScript,
  homeProbeScript,
  interactiveShellScript,
  pickHome,
  shortHash,
  type Guarded,
} from './containerConfig.js';
import { attachedSandbox, settingsOf } from './containerConfinement.js';
import { dockerClient, engineError, parseDockerHost, type DockerEndpoint } from './dockerEndpoint.js';
import { DockerJobs, forceCloser, JobEvents } from './dockerJobs.js';
import { deadline, goneSettleMs, killDeadlineMs, probeDeadlineMs } from './engineCalls.js';
import { settleWithin, valueWithin } from '../../platform/index.js';
import { pingEngine } from './engineHttp.js';
import { DockerWarmShells } from './dockerWarmShells.js';
import { stopCrashedRunContainers } from './runContainers.js';
import { findOrphans } from './orphanContainers.js';
import { debugLine } from '../shell/warmShell.js';

/*
 * Choices, so the next reader need not rediscover them:
 * - Managed containers (docker_image) are found by label (target, generation, profile) and named
 *   deterministically, so restarts reuse them and racing creators collide instead of doubling.
 *   They keep CHOWN, DAC_OVERRIDE, FOWNER, SETUID, SETGID (see containerConfig) and nothing else.
 * - Every call inspects the container first (a call in a warm shell only when that shell is new or its call
 *   does not start: dockerWarmShells): a stopped one is started, a removed one recreated, and
 *   the next call's output (or the pane) starts with a notice saying so.
 * - Each exec is its own session and process group in the container. Every process we start carries
 *   a random `__sb_job` token in its environment; timeouts and kill() run a second exec that signals
 *   every process with that token and the groups they lead (killJobsScript). A warm shell's call shares the
 *   shell's group, so its kill also ends that group's members but the shell (dockerWarmShells).
 * - Files go through the archive API (HEAD for stat, GET/PUT with our own tar), which needs no tools
 *   in the image and runs as the engine: new files belong to the container's user (copyUIDGID), an
 *   overwritten file keeps its mode but becomes a new inode.
 * - is_remote is false: the engine is local by default; a tcp:// docker_host does not change the flag.
 * - Every engine request has a deadline (and is aborted when it passes), because an engine that stops
 *   answering leaves a socket open rather than closing it. When a command times out or is aborted, its
 *   stream is force-closed a moment later whatever the kill exec does, and a kill the engine never took
 *   turns the call into a target_unreachable error instead of a hang.
 */

export const dockerProvider: BackendProvider = {
  ...dockerDeclaration,
  createEnvironment: (snapshot, ctx) => new DockerEnvironment(snapshot, ctx),
  // Its probe pings the Engine and inspects the container, if there is one: a container is made on first use only.
  idleProbe: 'environment',
  afterCrashedRuns: (home, stale) => stopCrashedRunContainers(home, stale),
  orphans: (home, specs, ownKnown) => findOrphans(home, specs, ownKnown),
};

/** osc7 for bash panes, as the local backend does, so pane headers follow `cd`. */
const osc7PromptCommand = 'printf "\\033]7;file://%s%s\\033\\\\" "${HOSTNAME:-localhost}" "$PWD"';

export class DockerEnvironment implements Environment {
  readonly identity: string;
  private readonly spec: DockerSpec;
  private readonly endpoint: DockerEndpoint;
  /** dockerode for this endpoint, made on first use: a health probe asks the Engine over plain HTTP (engineHttp). */
  private dockerLib: Docker | undefined;
  private readonly envFile: string;
  /**
   * Exports that look like credentials: in the Core's memory, never in envFile in the container
   * (shell/secretExports.ts).
   */
  private readonly secrets = new SecretExports();
  /** The shell commands run under; POSIX sh unless docker_shell says otherwise. */
  private readonly shell: string;
  private readonly container: ContainerLifecycle;
  private homeDir: string | undefined;
  private readonly jobRunner: DockerJobs;
  private readonly files: ContainerFiles;
  private readonly warm: DockerWarmShells;
  private readonly sawAttached: (info: ContainerInspectInfo) => void;

  constructor(snapshot: TargetSnapshot, ctx: ProviderContext) {
    this.identity = snapshot.identity;
    const parsed = DockerSpec.safeParse(snapshot.spec);
    if (!parsed.success)
      throw new SwitchboardError(
        'bad_config',
        `target "${snapshot.name}": ${formatZodError(parsed.error)}`,
        'fix the docker_* keys of this target',
      );
    this.spec = parsed.data;
    this.endpoint = parseDockerHost(this.spec.docker_host);
    const docker = (): Docker => this.docker();
    const guarded: Guarded = {
      profile: ctx.home,
      home: homedir(),
      sockets: this.endpoint.kind === 'unix' ? [this.endpoint.socketPath] : [],
    };
    // An attached container's own settings say what holds work in it: told to the Core at each look (it keeps the
    // latest), so the window, the approval dialog and doctor say it.
    this.sawAttached = (info) => ctx.reportSandbox?.(snapshot.identity, attachedSandbox(settingsOf(info), guarded));
    this.container = new ContainerLifecycle(
      docker,
      this.endpoint,
      this.spec,
      { name: snapshot.name, generation: snapshot.generation, profile: shortHash(ctx.home), guarded },
      this.spec.docker_container || this.spec.docker_on_stop === 'keep-running' ? undefined : ctx.coreRun,
      (problem) => ctx.reportReachability?.(snapshot.identity, problem),
      this.sawAttached,
    );
    const id = createHash('sha256').update(ctx.home).update('\0').update(snapshot.identity).digest('hex').slice(0, 16);
    this.envFile = `/tmp/.switchboard-env-${id}.sh`;
    this.shell = this.spec.docker_shell ?? 'sh';
    this.jobRunner = new DockerJobs({
      docker,
      endpoint: this.endpoint,
      shell: this.shell,
      dockerEnv: () => this.spec.docker_env,
      containerId: () => this.container.containerId,
      envRules: () => envRules(snapshot.flags.strip_env_keys, ctx),
    });
    this.files = new ContainerFiles(this.endpoint, () => this.container.info?.Config.User);
    this.warm = new DockerWarmShells({
      jobs: this.jobRunner,
      shell: this.shell,
      ensure: () => this.container.ensure(),
      envRules: () => envRules(snapshot.flags.strip_env_keys, ctx),
      goneReason: (ms) => this.container.containerGoneReason(ms),
      engineGone: engineGone(this.endpoint.label),
      killNotTaken: () => this.killNotTaken(),
    });
  }

  private docker(): Docker {
    return (this.dockerLib ??= dockerClient(this.endpoint));
  }

  /** A kill the engine never took: it is not answering at all (reported, so the target shows it). */
  private killNotTaken(): SwitchboardError {
    const e = new SwitchboardError(
      'target_unreachable',
      `docker engine at ${this.endpoint.label} stopped answering; the command may still be running in the container`,
      'check that the engine is healthy (docker info on that host), then retry',
    );
    this.container.report(e.message);
    return e;
  }

  /**
   * Exit codes that mean "killed by a signal" (or none at all), or 126, what the Engine reports for an exec its
   * stopping container ended: the container may be going away, and its state may say so only a moment later.
   */
  private static signalled(code: number | null): boolean {
    return code === null || code >= 128 || code === 126;
  }

  /** Runs a short script and returns its merged output (used for home()). */
  private async run(container: Container, script: string): Promise<{ output: string; exitCode: number | null }> {
    let output = '';
    const job = await this.jobRunner.start(container, [this.shell, '-c', script], {
      tty: false,
      stdin: false,
      sink: (t) => (output += t),
    });
    try {
      await deadline(() => job.ended, 'finish a short script');
    } catch (err) {
      job.stream.destroy();
      throw engineError(this.endpoint, err, 'run a short script');
    }
    return { output, exitCode: await this.jobRunner.exitCodeOf(job.exec) };
  }

  // ---- Environment --------------------------------------------------------------------------

  async home(): Promise<string> {
    if (this.homeDir) return this.homeDir;
    const container = await this.container.ensure();
    const workingDir = this.container.info?.Config.WorkingDir;
    let probed: string | undefined;
    if (!workingDir || workingDir === '/') {
      const r = await this.run(container, homeProbeScript);
      probed = r.exitCode === 0 ? r.output.trim() : undefined;
    }
    this.homeDir = pickHome(workingDir, probed);
    return this.homeDir;
  }

  async exec(command: string, opts: ExecOptions): Promise<ExecResult> {
    const warm = await this.warm.exec(command, opts, this.envFile, this.secrets);
    debugLine(`exec on ${this.identity} in ${warm ? 'a warm shell' : 'an exec of its own'}`);
    if (warm) {
      const notice = opts.lookOnly ? undefined : this.container.takeNotice();
      return notice ? { ...warm, output: `${notice}\n${warm.output}` } : warm;
    }
    const container = await this.container.ensure();
    const notice = opts.lookOnly ? undefined : this.container.takeNotice();
    const result = await execWrapped(
      command,
      { ...opts, envFile: this.envFile, secrets: this.secrets },
      async (script, sink) => {
        const job = await this.jobRunner.start(container, [this.shell, '-c', script], {
          tty: false,
          stdin: opts.stdin !== undefined,
          env: opts.env,
          sink,
          secrets: this.secrets.env(),
        });
        if (opts.stdin !== undefined) job.stream.end(opts.stdin);
        /** Set once stopping began; resolves to whether the engine took the kill (`taken`: once its exec started). */
        let killed: Promise<boolean> | undefined;
        let taken: Promise<boolean> | undefined;
        const closed = forceCloser(job);
        const ended = (async () => {
          await Promise.race([job.ended, closed.done]);
          closed.disarm();
          // The kill exec may still be on its way; an engine that never took it is not answering at all.
          if (killed && !(await valueWithin(killed, killDeadlineMs, true))) throw this.killNotTaken();
        })();
        ended.catch(() => undefined); // awaited by the caller through `ended`; this keeps it from being unhandled
        return {
          ended,
          // The exec's own process has exited once the Engine stops calling it running (a `cmd &` may hold the stream).
          exited: () => this.jobRunner.exitCodeOf(job.exec).then(() => undefined),
          exitStatus: async () => {
            const code = await this.jobRunner.exitCodeOf(job.exec);
            if (code !== null) return { code };
            const gone = await this.container.containerGoneReason(goneSettleMs);
            if (gone === engineGone(this.endpoint.label)) {
              // Not an exit: the link to the engine went, and the command may live on (it is swept once the engine is
              // back).
              const e = new SwitchboardError(
                'target_unreachable',
                `${gone}; the command may still be running in the container`,
                'check that the engine is running, then retry',
              );
              this.container.report(e.message);
              throw e;
            }
            return { code: 137, note: gone ?? 'the command ended without an exit status' };
          },
          stop: () => {
            if (killed) return;
            // Armed now, not after the kill: a child that escaped it, or an engine that stopped answering,
            // would otherwise hold the stream (and this call) open for ever.
            closed.arm();
            ({ taken, done: killed } = this.jobRunner.killing([job.token]));
            void killed.then((answered) => {
              if (!answered) closed.now();
            });
          },
          detach: () => closed.disarm(),
          // Answered once the engine took the kill (its grace runs on in the container); one that did not is said.
          stopReached: async () => {
            if (taken && !(await taken)) throw this.killNotTaken();
          },
        };
      },
    );
    return notice ? { ...result, output: `${notice}\n${result.output}` } : result;
  }

  async openShell(opts: {
    cwd: string;
    cols: number;
    rows: number;
    env?: Record<string, string>;
  }): Promise<ShellChannel> {
    const container = await this.container.ensure();
    const events = new JobEvents();
    const notice = this.container.takeNotice();
    if (notice) events.data(`${notice}\r\n`);
    const env = {
      TERM: 'xterm-256color',
      COLORTERM: 'truecolor',
      TERM_PROGRAM: 'Switchboard',
      PROMPT_COMMAND: osc7PromptCommand,
      ...opts.env,
    };
    const job = await this.jobRunner.start(
      container,
      [this.shell, '-c', interactiveShellScript(opts.cwd, this.spec.docker_shell)],
      {
        tty: true,
        stdin: true,
        env,
        sink: (t) => events.data(t),
      },
    );
    const resize = (cols: number, rows: number): void => {
      // A resize racing the exec's end: nothing to resize.
      if (!job.isEnded()) void job.exec.resize({ h: rows, w: cols }).catch(() => undefined);
    };
    resize(opts.cols, opts.rows);
    let killed = false;
    void job.ended.then(async () => {
      const code = await this.jobRunner.exitCodeOf(job.exec);
      events.finish(
        code,
        killed
          ? undefined
          : await this.container.containerGoneReason(DockerEnvironment.signalled(code) ? goneSettleMs : 0),
      );
    });
    return {
      onData: (l) => events.onData(l),
      onExit: (l) => events.onExit(l),
      write: (data) => {
        if (!job.isEnded()) job.stream.write(data);
      },
      resize,
      pause: () => job.stream.pause(),
      resume: () => job.stream.resume(),
      kill: () => {
        if (job.isEnded()) return;
        killed = true;
        // The pane is going away either way: close its stream soon even if the engine never takes the kill.
        const closed = forceCloser(job);
        closed.arm();
        void this.jobRunner.kill([job.token]).finally(() => closed.now());
      },
    };
  }

  async spawnBackground(
    command: string,
    opts: { cwd: string; env?: Record<string, string> },
  ): Promise<BackgroundHandle> {
    const container = await this.container.ensure();
    const events = new JobEvents();
    const notice = this.container.takeNotice();
    if (notice) events.data(`${notice}\n`);
    // Every exec is already its own session and process group, so no setsid is needed for kill() to reach the group.
    const script = `${enterDirScript(opts.cwd)}\nexec 2>&1\n${command}`;
    const job = await this.jobRunner.start(container, [this.shell, '-c', script], {
      tty: false,
      stdin: true,
      env: opts.env,
      sink: (t) => events.data(t),
    });
    let killed = false;
    void job.ended.then(async () => {
      const code = await this.jobRunner.exitCodeOf(job.exec);
      events.finish(
        code,
        killed
          ? 'killed'
          : await this.container.containerGoneReason(DockerEnvironment.signalled(code) ? goneSettleMs : 0),
      );
    });
    return {
      onData: (l) => events.onData(l),
      onExit: (l) => events.onExit(l),
      write: (data) => {
        if (job.isEnded() || job.stream.writableEnded)
          throw new SwitchboardError('bad_request', 'the process has closed its stdin');
        job.stream.write(data);
      },
      kill: async () => {
        if (job.isEnded()) return;
        killed = true;
        // An engine that did not take the kill will not report the end either: close the stream right away.
        if (await this.jobRunner.kill([job.token])) await settleWithin(job.ended, killDeadlineMs);
        if (!job.isEnded()) job.stream.destroy();
      },
    };
  }

  async stat(path: string): Promise<FileStat> {
    return this.files.stat(await this.container.ensure(), path);
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    return this.files.readFile(await this.container.ensure(), path, maxBytes);
  }

  async writeFile(path: string, data: Buffer): Promise<void> {
    return this.files.writeFile(await this.container.ensure(), path, data);
  }

  async probe(): Promise<{ ok: true; detail?: string } | { ok: false; problem: string }> {
    try {
      await deadline((abortSignal) => pingEngine(this.endpoint, abortSignal), 'answer a ping', probeDeadlineMs);
    } catch (err) {
      const e = engineError(this.endpoint, err, 'answer a ping');
      this.container.report(e.message);
      return { ok: false, problem: e.message };
    }
    try {
      let info: ContainerInspectInfo | undefined;
      if (this.spec.docker_container) {
        info = await this.container.inspect(this.spec.docker_container, probeDeadlineMs);
        if (!info)
          return {
            ok: false,
            problem: `container "${this.spec.docker_container}" does not exist on ${this.endpoint.label}`,
          };
        this.sawAttached(info);
      } else {
        info =
          (this.container.containerId
            ? await this.container.inspect(this.container.containerId, probeDeadlineMs)
            : undefined) ?? (await this.container.findManaged(probeDeadlineMs));
        if (!info)
          return {
            ok: true,
            detail: `${this.endpoint.label}: container is created on first use (${this.spec.docker_image ?? ''})`,
          };
      }
      const name = info.Name.replace(/^\//, '');
      const state = info.State.Running ? (info.State.Paused ? 'paused' : 'running') : 'stopped; started on next use';
      return { ok: true, detail: `${this.endpoint.label}: ${name} ${state} (${info.Config.Image})` };
    } catch (err) {
      return { ok: false, problem: engineError(this.endpoint, err, 'inspect the container').message };
    }
  }

  async cleanup(reason: 'idle' | 'removed' | 'shutdown'): Promise<void> {
    await this.warm.close();
    const jobs = this.jobRunner.running();
    if (jobs.length) await this.jobRunner.kill(jobs.map((j) => j.token));
    for (const j of jobs) j.stream.destroy();
    if (reason === 'shutdown') {
      // The shells had their grace above; now the container itself stops with its Core (docker_on_stop).
      await this.container.stopManaged();
      return;
    }
    if (reason !== 'removed') return;
    try {
      // Never remove a container we only attached to; just drop the state file we left in it.
      const attached = this.spec.docker_container && this.container.containerId;
      if (attached) await this.run(this.docker().getContainer(attached), `rm -f ${shellQuote(this.envFile)}`);
      else await this.container.removeManaged();
    } catch {
      /* an unreachable engine cannot be cleaned; the labels let a later run find what is left */
    }
    this.container.forget();
  }
}
