// Processes inside a container: execs tagged with a job token, their output, exit codes and group kills.
import { randomBytes } from 'node:crypto';
import { Writable, type Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type DockerModem from 'docker-modem';
import type Docker from 'dockerode';
import type { Container, Exec } from 'dockerode';
import type { DockerSpec } from './fields.js';
import { envList, jobVar, killJobsScript } from './containerConfig.js';
import { commandEnv, type EnvRules } from '../shell/commandEnv.js';
import { engineError, isUnreachable, type DockerEndpoint } from './dockerEndpoint.js';
import { deadline, delay, execDeadlineMs, forceCloseMs, killDeadlineMs } from './engineCalls.js';
import { tracked, settleWithin } from '../../platform/index.js';

/** Output a pane or background process produced before anyone listened is kept up to this many chars. */
const maxBufferedChars = 1_000_000;
/** A kill exec ends its jobs gently (their grace, then KILL): its output is waited for this long at most. */
const killExecEndMs = 5_000;

export interface Job {
  token: string;
  exec: Exec;
  stream: Duplex;
  /** Resolves when the attach stream has ended (the process exited or the connection dropped). */
  ended: Promise<void>;
  isEnded(): boolean;
}

/** The jobs of one environment's container; each carries a random token, so a kill finds all its processes. */
export class DockerJobs {
  private readonly jobs = new Map<string, Job>();

  constructor(
    private readonly deps: {
      /** dockerode, loaded when the first job starts. */
      docker: () => Docker;
      endpoint: DockerEndpoint;
      shell: string;
      dockerEnv: () => DockerSpec['docker_env'];
      /** The rules for what an exec may get from the Core (see commandEnv). */
      envRules: () => EnvRules;
      containerId: () => string | undefined;
    },
  ) {}

  /** The jobs whose streams are still open. */
  running(): Job[] {
    return [...this.jobs.values()];
  }

  /**
   * Starts an exec tagged with a fresh job token; output is decoded and handed to `sink` as it arrives. The exec
   * runs with the container's environment, the target's docker_env (the person's own settings for it) and from
   * the Core only what commandEnv lets through: the engine is never handed the Core's variables wholesale.
   */
  async start(
    container: Container,
    cmd: string[],
    o: {
      tty: boolean;
      stdin: boolean;
      env?: Record<string, string>;
      sink: (text: string) => void;
      errSink?: (text: string) => void;
      /**
       * The identity's secret exports (shell/secretExports.ts): handed on as they are, after the withheld names went.
       */
      secrets?: Record<string, string>;
    },
  ): Promise<Job> {
    const token = randomBytes(8).toString('hex');
    let exec: Exec;
    let stream: Duplex;
    try {
      exec = await deadline(
        (abortSignal) =>
          container.exec({
            Cmd: cmd,
            Env: envList(
              this.deps.dockerEnv(),
              commandEnv(this.deps.envRules(), { inherit: 'passthrough', extra: o.env }),
              o.secrets,
              { [jobVar]: token },
            ),
            AttachStdin: o.stdin,
            AttachStdout: true,
            AttachStderr: true,
            Tty: o.tty,
            abortSignal,
          }),
        'create an exec',
        execDeadlineMs,
      );
      const created = exec;
      stream = await deadline(
        (abortSignal) => created.start({ hijack: o.stdin, stdin: o.stdin, Tty: o.tty, abortSignal }),
        'start an exec',
        execDeadlineMs,
      );
    } catch (err) {
      throw engineError(this.deps.endpoint, err, 'run a command in the container');
    }
    const out = new StringDecoder('utf8');
    const errOut = new StringDecoder('utf8');
    const emit = (text: string): void => {
      if (text) o.sink(text);
    };
    const emitErr = (text: string): void => {
      if (text) (o.errSink ?? o.sink)(text);
    };
    if (o.tty) {
      stream.on('data', (b: Buffer) => emit(out.write(b)));
    } else {
      // docker-modem's demuxer splits the Engine's 8-byte-framed stream (and passes a stream that is not framed
      // through).
      (this.deps.docker().modem as DockerModem).demuxStream(stream, decodeInto(out, emit), decodeInto(errOut, emitErr));
    }
    let ended = false;
    const endedP = new Promise<void>((resolve) => {
      const done = (): void => {
        if (ended) return;
        ended = true;
        emit(out.end());
        emitErr(errOut.end());
        this.jobs.delete(token);
        resolve();
      };
      stream.once('end', done);
      stream.once('close', done);
      stream.once('error', done);
    });
    const job: Job = { token, exec, stream, ended: endedP, isEnded: () => ended };
    this.jobs.set(token, job);
    return job;
  }

  /** The exit code of a finished exec; the Engine may report Running for a moment after the stream ends. */
  async exitCodeOf(exec: Exec): Promise<number | null> {
    for (let i = 0; i < 100; i++) {
      try {
        const info = await deadline((abortSignal) => exec.inspect({ abortSignal }), 'inspect an exec', killDeadlineMs);
        if (!info.Running) return info.ExitCode ?? null;
      } catch {
        // the engine lost the exec: its exit status is unknown
        return null;
      }
      await delay(Math.min(5 * (i + 1), 50));
    }
    return null;
  }

  /**
   * Ends every process of these jobs gently (found by their token; for a warm shell's call also the members of the
   * shell's group, `shellGroup`) through a second exec. Tracked (processes/endGently.ts). Resolves false when the
   * engine did not take the kill in time (so the processes may live on), true otherwise, a gone container included.
   */
  kill(tokens: readonly string[], shellGroup?: number): Promise<boolean> {
    return this.killing(tokens, shellGroup).done;
  }

  /**
   * kill(), with `taken` besides: whether the engine took the kill (its exec started: the gentle signals are on their
   * way), known before the grace is over; `done` once the kill exec ended.
   */
  killing(tokens: readonly string[], shellGroup?: number): { taken: Promise<boolean>; done: Promise<boolean> } {
    let took: (ok: boolean) => void = () => undefined;
    const taken = new Promise<boolean>((resolve) => (took = resolve));
    const done = this.killNow(tokens, shellGroup, took).finally(() => took(true));
    void tracked(done.then(() => undefined));
    return { taken, done };
  }

  private async killNow(
    tokens: readonly string[],
    shellGroup: number | undefined,
    took: (ok: boolean) => void,
  ): Promise<boolean> {
    const containerId = this.deps.containerId();
    if (!tokens.length || !containerId) return true;
    let stream: Duplex;
    try {
      const c = this.deps.docker().getContainer(containerId);
      const cmd = [this.deps.shell, '-c', killJobsScript(tokens, undefined, undefined, shellGroup)];
      const exec = await deadline(
        (abortSignal) => c.exec({ Cmd: cmd, AttachStdout: true, AttachStderr: true, Tty: false, abortSignal }),
        'create a kill exec',
        killDeadlineMs,
      );
      stream = await deadline(
        (abortSignal) => exec.start({ hijack: false, stdin: false, abortSignal }),
        'start a kill exec',
        killDeadlineMs,
      );
    } catch (err) {
      // An engine that answered with an error (the container is gone or stopped) runs nothing of ours any more.
      took(!isUnreachable(err));
      return !isUnreachable(err);
    }
    took(true);
    try {
      stream.resume();
      await settleWithin(
        new Promise((resolve) => {
          stream.once('end', resolve);
          stream.once('close', resolve);
          stream.once('error', resolve);
        }),
        killExecEndMs,
      );
    } finally {
      stream.destroy();
    }
    return true;
  }
}

/** Output and exit of a pane or background process; what arrives before anyone listens is kept and replayed. */
export class JobEvents {
  private readonly dataListeners: ((data: string) => void)[] = [];
  private readonly exitListeners: ((exitCode: number | null, reason?: string) => void)[] = [];
  private buffered: string[] = [];
  private bufferedChars = 0;
  private exit: { code: number | null; reason: string | undefined } | undefined;

  data(text: string): void {
    if (!text) return;
    if (this.dataListeners.length) {
      for (const l of this.dataListeners) l(text);
      return;
    }
    this.buffered.push(text);
    this.bufferedChars += text.length;
    while (this.bufferedChars > maxBufferedChars && this.buffered.length > 1)
      this.bufferedChars -= this.buffered.shift()?.length ?? 0;
  }

  finish(code: number | null, reason: string | undefined): void {
    if (this.exit) return;
    this.exit = { code, reason };
    for (const l of this.exitListeners) l(code, reason);
  }

  onData(l: (data: string) => void): void {
    this.dataListeners.push(l);
    const pending = this.buffered;
    this.buffered = [];
    this.bufferedChars = 0;
    for (const t of pending) l(t);
  }

  onExit(l: (exitCode: number | null, reason?: string) => void): void {
    if (this.exit) l(this.exit.code, this.exit.reason);
    else this.exitListeners.push(l);
  }
}

/**
 * Closes a job's stream by force, forceCloseMs after arm() or at once with now(). `done` resolves a moment
 * after the close even if the stream never says it ended, so whoever waits on the job is never left hanging.
 */
export function forceCloser(job: Job): { arm(): void; now(): void; disarm(): void; done: Promise<void> } {
  let armed: NodeJS.Timeout | undefined;
  let cap: NodeJS.Timeout | undefined;
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const now = (): void => {
    clearTimeout(armed);
    if (cap) return;
    if (!job.isEnded()) job.stream.destroy();
    cap = setTimeout(finish, 500);
  };
  return {
    done,
    arm: () => {
      if (!armed && !cap) armed = setTimeout(now, forceCloseMs);
    },
    now,
    disarm: () => {
      clearTimeout(armed);
      clearTimeout(cap);
    },
  };
}

/** A sink for demuxed bytes: decoded as UTF-8 across chunk boundaries, handed on as text. */
function decodeInto(decoder: StringDecoder, emit: (text: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      emit(decoder.write(chunk));
      done();
    },
  });
}
