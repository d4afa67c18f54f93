// A remote command's exec channel as the Core sees it: a call's own channel (output, exit status, stop, detach) and
// a long-lived one (a pane or a background process), each ending its process group gently over the same connection.
import { randomBytes } from 'node:crypto';
import { exitReasons } from '../../../../shared/exitReasons.js';
import { tracked, endGroupScript, settleWithin } from '../../platform/index.js';
import type { ShellRun } from '../shell/execWrapped.js';
import { GroupHead } from './groupHead.js';
import type { ExecChannel, LiveConnection } from './liveConnection.js';

/** The marker a command's first line carries its process group id behind (groupHead.ts). */
export const groupMarker = (): string => `__SB_PGID_${randomBytes(6).toString('hex')}__`;

/**
 * A stopped or killed remote command: how long its channel may take to end after the kill, then after our own close,
 * before the call is ended without it.
 */
const killGraceMs = 3000;
const closeGraceMs = 1000;

function unrefDelay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/**
 * A call's own exec channel, opened with `marker` at the head of its output: the output goes to `sink`, stdin is
 * written and closed, and a stop ends the remote group, then the channel, then gives up waiting.
 */
export function channelRun(
  live: LiveConnection,
  opened: ExecChannel,
  marker: string,
  stdin: string | undefined,
  sink: (text: string) => void,
): ShellRun {
  const { channel, exitCode: reportedExit } = opened;
  let stopRequested = false;
  let killSent = false;
  const killNow = (): void => {
    if (killSent || head.pgid === undefined) return;
    killSent = true;
    void killGroup(live, head.pgid);
  };
  const head = new GroupHead(marker, () => {
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
  if (stdin !== undefined) channel.end(stdin);
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
}

/** End a remote process group gently (endGently.ts) over a second channel of the same connection. Tracked. */
export function killGroup(live: LiveConnection, pgid: number): Promise<void> {
  if (!live.isAlive) return Promise.resolve();
  return tracked(
    live.run(endGroupScript(pgid), { timeoutMs: 10_000 }).then(
      () => undefined,
      () => undefined,
    ),
  );
}

/** A long-lived channel (pane or background process): buffered data until someone listens, one exit. */
export class RemoteProcess {
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
