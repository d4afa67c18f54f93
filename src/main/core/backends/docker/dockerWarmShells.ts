// Warm shells in a container: one identity's few long-lived `sh -s` execs that run tool calls without an exec per call.
//
// Why this shape (the choices, so the next reader need not rediscover them):
// - An exec per call costs the Engine several round trips (create, start, inspect) plus an inspect of the container
//   first; a call written to a shell already attached costs one trip through the engine's stream and a fork.
// - Images may have no bash (busybox ash, dash), so the per-call program is POSIX sh (shell/posixWarmCall.ts): a
//   forked subshell per call (no exec: starting a program in a container is the slow part), whose pid and exit
//   status the shell reports as warmProgram's calls report theirs, so the shared pool (shell/warmShell.ts) runs it.
// - Each call carries its own job token (`__sb_job`), so timeouts, cancels and cleanup kill through the same
//   token-matching kill exec as the exec-per-call path (children that left the group included), which also ends the
//   members of the warm shell's process group but the shell (the call's subshell and what it forked); the pool's
//   group kills are mapped to the token and shell of the call that pid belongs to.
// - A live warm shell means the container is running, so a warm call skips the per-call inspect. A shell is
//   started only after ensure() (which starts, unpauses or recreates the container and leaves the notice for the
//   call). A paused container leaves a call unstarted: a call that has not reported its pid shortly asks ensure()
//   (which unpauses it, with the notice, or fails with the engine's error). A stopped or removed container ends
//   the shell's stream: a call that died before it started is run the exec-per-call way (ensure() then says what
//   happened); one that died running says so (diedNote, or why the container went).
// - The shell exec gets the environment an exec per call gets (docker_env, the passthrough and the run markers of
//   the call it is started for, as local and SSH warm shells get that call's variables); each call's own variables (run
// markers, job
//   token) are exported in its subshell. A forked subshell keeps the shell's environment in /proc, so the shell
//   carrying this Core run's marker is what lets the next run's sweep (processes/coreRuns.ts) find a subshell a
//   crashed Core left behind. A change of the passthrough retires the shells.
// - Not warm: calls with stdin, commands naming `$$`, a full pool, a docker_shell that is not a POSIX-like shell,
//   SWITCHBOARD_NO_WARM_SHELLS=1.
import { randomBytes } from 'node:crypto';
import type { Container } from 'dockerode';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { ExecOptions, ExecResult } from '../provider.js';
import { commandEnv, type EnvRules } from '../shell/commandEnv.js';
import type { SecretExports } from '../shell/secretExports.js';
import { execWrapped, type ShellRun } from '../shell/execWrapped.js';
import { assignable, posixWarmCall, posixWarmPrelude, shellPidTag } from '../shell/posixWarmCall.js';
import { namesOwnPid, type WarmCall } from '../shell/warmProgram.js';
import { openingWarmProcess, warmPidLine, type WarmProcess, type WarmShell } from '../shell/warmShell.js';
import { WarmShellPool } from '../shell/warmShellPool.js';
import { jobVar } from './containerConfig.js';
import type { DockerJobs } from './dockerJobs.js';
import { goneSettleMs, killDeadlineMs } from './engineCalls.js';
import { valueWithin } from '../../platform/index.js';

/** A call that has not reported its pid after this long may be in a paused container: ask the engine. */
const startCheckMs = 300;

/** Shells that read POSIX sh and split unquoted words (zsh does not), so the warm line and kill scripts run in them. */
const posixShell = /^(?:.*\/)?(?:sh|ash|dash|bash|ksh|mksh)$/;

/** The warm shell ended before the call started: nothing ran; run it another way. */
class NotStarted extends Error {}

export interface DockerWarmDeps {
  jobs: DockerJobs;
  /** The shell commands run under (docker_shell, else sh). */
  shell: string;
  /** The running container (started, unpaused or recreated as needed; the notice is left for the call). */
  ensure(): Promise<Container>;
  envRules(): EnvRules;
  /** Why a stream ended when it was the container's doing (see ContainerLifecycle.containerGoneReason). */
  goneReason(settleMs: number): Promise<string | undefined>;
  /** What goneReason says when the engine itself is gone. */
  engineGone: string;
  /** The error of an engine that did not take a kill (the exec-per-call path's wording). */
  killNotTaken(): SwitchboardError;
}

/** What a warm process knows about its exec. */
interface ExecState {
  openError: unknown;
  /** The shell's pid, once it said it: its calls run in its process group. */
  pid: number | undefined;
}

export class DockerWarmShells {
  private pool: WarmShellPool | undefined;
  private envKey = '';
  private readonly states = new WeakMap<WarmProcess, ExecState>();
  /** The calls running, by their pid tag: job token, and process group once the shell said it. */
  private readonly calls = new Map<string, { token: string; pgid?: number }>();
  /** The job token of each call's process group (kept past the call for what it left running). */
  private readonly tokenOfGroup = new Map<number, { token: string; shell: ExecState | undefined }>();
  /** Whether the engine took a kill (its exec started), by job token: told to the call that asked it (stopReached). */
  private readonly killTaken = new Map<string, (taken: Promise<boolean>) => void>();
  /** Kills asked for, by job token: whether the engine took them. */
  private readonly kills = new Map<string, Promise<boolean>>();
  /** The variables of the call a new shell is started for (see the module comment). */
  private callEnv: Record<string, string> | undefined;

  constructor(private readonly deps: DockerWarmDeps) {}

  /** Run the call in a warm shell; undefined when it must take the exec-per-call path (nothing ran then). */
  async exec(
    command: string,
    opts: ExecOptions,
    envFile: string,
    secrets?: SecretExports,
  ): Promise<ExecResult | undefined> {
    if (
      process.env.SWITCHBOARD_NO_WARM_SHELLS ||
      opts.stdin !== undefined ||
      namesOwnPid(command) ||
      !posixShell.test(this.deps.shell)
    )
      return undefined;
    const token = randomBytes(8).toString('hex');
    // The identity's secret exports go in the call's text (the warm shell's stdin, never an exec's command line).
    const env = {
      ...commandEnv(this.deps.envRules(), { inherit: 'passthrough', extra: opts.env, source: {} }),
      ...secrets?.env(),
      [jobVar]: token,
    };
    if (!assignable(env)) return undefined;
    // A shell finishing the last call (answered, not yet reaped) is waited for: sequential calls keep one shell.
    const settling = this.pool?.settling();
    if (settling) await settling;
    const shell = this.take(opts.env);
    if (!shell) return undefined;
    let call: WarmCall | undefined;
    try {
      // Taking and running are one step (no await between): execWrapped calls the starter before its first await.
      return await execWrapped(
        command,
        { ...opts, envFile, ...(secrets ? { secrets } : {}), wrap: (c, w) => (call = posixWarmCall(c, w, env)) },
        async (_script, sink) => this.run(shell, call!, token, sink),
      );
    } catch (err) {
      if (err instanceof NotStarted) return undefined;
      throw err;
    }
  }

  /** End every shell and what their calls left running. */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    await pool?.close();
  }

  private take(callEnv: Record<string, string> | undefined): WarmShell | undefined {
    this.pool ??= new WarmShellPool({ start: () => this.startShell(), max: 3, lastIdleMs: 120_000 }, (pgid) =>
      this.killGroup(pgid),
    );
    const key = JSON.stringify(commandEnv(this.deps.envRules(), { inherit: 'passthrough' }));
    if (key !== this.envKey) {
      this.pool.renew();
      this.envKey = key;
    }
    // Only the run markers: another variable of that call would be seen by every later call in the shell.
    this.callEnv = Object.fromEntries(Object.entries(callEnv ?? {}).filter(([k]) => /^SB_CORE_[A-Z_]*$/.test(k)));
    return this.pool.acquire();
  }

  /** One call in `shell`, taken just now. */
  private run(shell: WarmShell, call: WarmCall, token: string, sink: (text: string) => void): ShellRun {
    const state = this.states.get(shell.proc);
    const entry: { token: string; pgid?: number } = { token };
    this.calls.set(call.tags.pid, entry);
    const run = shell.run(call, sink);
    const started = (): boolean => entry.pgid !== undefined;
    let killAsked: (taken: Promise<boolean>) => void = () => undefined;
    const killTaken = new Promise<Promise<boolean>>((resolve) => (killAsked = resolve));
    this.killTaken.set(token, (taken) => killAsked(taken));
    let stopped = false;
    let failed: (err: unknown) => void = () => undefined;
    const failure = new Promise<void>((_resolve, reject) => (failed = reject));
    failure.catch(() => undefined); // awaited through the race below; this keeps it from being unhandled
    /** The engine asked about a call that did not start: its answer (an unpause, so a notice) belongs to this call. */
    let checking: Promise<unknown> | undefined;
    const check = setTimeout(() => {
      if (started()) return;
      checking = this.deps.ensure().catch((err: unknown) => {
        // The engine does not answer: this shell's stream is no good either.
        shell.retire();
        failed(err);
      });
    }, startCheckMs);
    const ended = Promise.race([run.ended, failure])
      .then(async () => {
        await checking;
        const kill = this.kills.get(token);
        if (stopped && kill && !(await valueWithin(kill, killDeadlineMs, true))) throw this.deps.killNotTaken();
      })
      .finally(() => {
        clearTimeout(check);
        // The pid line (stderr) may come after the end line (stdout), which names the group too (shell/warmRun.ts):
        // the group is mapped to the call's token here then, so a cleanup can still end what the call left in it.
        if (entry.pgid === undefined && run.group !== undefined) {
          entry.pgid = run.group;
          this.tokenOfGroup.set(run.group, { token, shell: state });
        }
        this.calls.delete(call.tags.pid);
        this.kills.delete(token);
        this.killTaken.delete(token);
        // A retired shell's call may have left something in its group, ended when the identity is cleaned up.
        if (entry.pgid !== undefined && !shell.isRetired) this.tokenOfGroup.delete(entry.pgid);
      });
    ended.catch(() => undefined); // awaited by the caller through `ended`; this keeps it from being unhandled
    return {
      ended,
      exited: () => ended,
      exitStatus: async () => {
        const status = await run.exitStatus();
        if (status.note === undefined) return status;
        if (!started()) {
          const open = state?.openError;
          if (open instanceof SwitchboardError && open.code === 'target_unreachable') throw open;
          throw new NotStarted();
        }
        const gone = await this.deps.goneReason(goneSettleMs);
        if (gone === this.deps.engineGone) {
          throw new SwitchboardError(
            'target_unreachable',
            `${gone}; the command may still be running in the container`,
            'check that the engine is running, then retry',
          );
        }
        return gone ? { code: 137, note: gone } : status;
      },
      stop: () => {
        stopped = true;
        run.stop();
      },
      detach: () => run.detach(),
      // Answered once the engine took the kill of the call's group (its grace runs on in the container); a call
      // whose group was never reported is answered as `ended` says.
      stopReached: async () => {
        if (!(await await killTaken)) throw this.deps.killNotTaken();
      },
    };
  }

  /**
   * A call's process group, ended through its job token (HUP and TERM, then KILL), as the exec-per-call path ends it.
   */
  private killGroup(pgid: number): Promise<void> {
    const call = this.tokenOfGroup.get(pgid);
    if (call === undefined) return Promise.resolve();
    const { taken, done } = this.deps.jobs.killing([call.token], call.shell?.pid);
    this.kills.set(call.token, done);
    this.killTaken.get(call.token)?.(taken);
    return done.then(() => undefined);
  }

  /** A shell exec that is still being started: what it is sent waits for it. */
  private startShell(): WarmProcess {
    const state: ExecState = { openError: undefined, pid: undefined };
    const callEnv = this.callEnv;
    let errText = '';
    /** The pid line maps the call's group to its token before the pool hears of it (a kill may follow at once). */
    const readControlLines = (text: string): void => {
      errText = (errText + text).slice(-4096);
      for (let nl = errText.indexOf('\n'); nl >= 0; nl = errText.indexOf('\n')) {
        const line = errText.slice(0, nl);
        errText = errText.slice(nl + 1);
        const m = warmPidLine.exec(line);
        const call = m ? this.calls.get(m[1] ?? '') : undefined;
        if (m && call) {
          call.pgid = Number(m[2]);
          this.tokenOfGroup.set(call.pgid, { token: call.token, shell: state });
        }
        const shellPid = new RegExp(`^${shellPidTag} (\\d+)$`).exec(line);
        if (shellPid) state.pid = Number(shellPid[1]);
      }
    };
    const proc = openingWarmProcess(
      async (sink) => {
        const container = await this.deps.ensure();
        const job = await this.deps.jobs.start(container, [this.deps.shell, '-s'], {
          tty: false,
          stdin: true,
          env: callEnv,
          sink: sink.stdout,
          errSink: (text) => {
            readControlLines(text);
            sink.stderr(text);
          },
        });
        job.stream.on('error', () => undefined);
        void job.ended.then(sink.exited);
        return {
          write: (text) => {
            if (!job.isEnded() && !job.stream.writableEnded) job.stream.write(text);
          },
          end: () => {
            if (!job.stream.writableEnded) job.stream.end();
          },
        };
      },
      (e) => (state.openError = e),
      { prelude: posixWarmPrelude(), killGroup: (pgid) => this.killGroup(pgid) },
    );
    this.states.set(proc, state);
    return proc;
  }
}
