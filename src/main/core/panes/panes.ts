// Interactive terminal panes: a shell channel per pane, output batched and flow-controlled on its own path.
// Over 380 lines: every pane's life (open, batch, pause, reconnect, resume, close) is one state machine.
import { randomUUID } from 'node:crypto';
import { SwitchboardError, errorLine, toErrorPayload } from '../../../shared/errors.js';
import type { PaneInfo, PaneReconnect } from '../../../shared/api.js';
import type { ShellChannel, TargetSnapshot } from '../backends/index.js';
import type { Sessions, IdentityHolds } from '../sessions/index.js';
import { RecentOutput } from './recentOutput.js';
import { oscScanText, openOscTail } from './paneBytes.js';
import { BATCH_MAX_BYTES, PaneBatch } from './paneBatch.js';
import { releaseFrame } from './framePool.js';
import { HIGH_WATERMARK, LOW_WATERMARK } from '../../../shared/paneFlow.js';
import { settleWithin } from '../platform/index.js';
import { lostLine, reconnectDelayMs, reconnectedLine, retriesAfter } from './paneReconnect.js';
import { exitReasons } from '../../../shared/exitReasons.js';

/**
 * The pty pauses above HIGH_WATERMARK unacknowledged chars and is read again below LOW_WATERMARK (shared/paneFlow.ts).
 */
export { HIGH_WATERMARK, LOW_WATERMARK };
const BATCH_MS = 5;
/** The longest the Core's stop waits for every pane's shell to exit. */
const CLOSE_ALL_WAIT_MS = 5000;
export interface PaneSink {
  /**
   * One batch: the pty's UTF-8 bytes as read (whole characters), sent to a binary client without decoding, and its
   * length in chars (UTF-16 code units), what the client acknowledges. The bytes are the sink's during the call
   * only: their frame is used again for later output once its holders let it go, so whatever keeps them past the
   * call holds the frame (framePool.ts: holdFrame, then releaseFrame) or copies them.
   */
  data(paneId: string, data: Uint8Array<ArrayBuffer>, chars: number): void;
  cwd(paneId: string, cwd: string): void;
  /** `detail`: why a pane whose connection dropped was not reconnected. */
  exit(paneId: string, exitCode: number | null, reason?: string, detail?: string): void;
  /** A pane whose connection dropped: the countdown, an attempt under way, or the new shell. */
  reconnect(paneId: string, state: PaneReconnect): void;
}

/**
 * A pane whose connection dropped, between its lost shell and a new one. The loop lives in the Core, not the window:
 * it goes on while no window is open (a reload, a closed laptop lid), every window showing the pane sees the same
 * countdown, and a window that comes back resumes the pane with its scrollback instead of a dead one.
 */
interface Retry {
  attempt: number;
  /**
   * Which wait of RECONNECT_DELAYS_MS the countdown is at: it moves on only when a wait ran out, so an attempt a person
   * asked for early ("Reconnect now", a key) that fails counts the same wait down again instead of skipping to a
   * longer one (2 s, then 8 s).
   */
  step: number;
  timer: NodeJS.Timeout | undefined;
  /** Set while an attempt is under way (its shell is being opened). */
  trying: boolean;
  state: PaneReconnect;
}

interface Pane {
  info: PaneInfo;
  channel: ShellChannel;
  /** What the pane runs on: a reconnect opens its new shell on the same runtime identity. */
  snapshot: TargetSnapshot;
  /** The terminal's size, for a new shell after a reconnect. */
  size: { cols: number; rows: number };
  retry: Retry | undefined;
  /** The audit's ear for the shell's end, and for each new shell after a dropped connection (given at open). */
  onEnd: ((end: PaneEnd) => void) | undefined;
  onReconnect: ((attempt: number) => void) | undefined;
  /** Output read since the last batch went. */
  batch: PaneBatch;
  timer: NodeJS.Timeout | undefined;
  /** When the last batch went (performance.now()). */
  sentAt: number;
  unacked: number;
  /** Why the pty is not read: 'ack' (the renderer is behind) or a slow connection's key. Read again when empty. */
  pausedBy: Set<string>;
  /** An OSC sequence still open at the end of the last chunk, scanned again with the next. */
  oscTail: Buffer;
  /** Gives back the hold on the pane's identity (on exit or close). */
  release: () => void;
  /** The output already sent, newest last, replayed to a window that resumes the pane. */
  recent: RecentOutput;
  /** How long the shell outlives its last window; 0: it closes with it. */
  keepMs: number;
  /** Windows holding the pane as their own (the one that opened it, those that resumed it). */
  owners: number;
  /** Closes the pane when no window came back in time. */
  orphanTimer: NodeJS.Timeout | undefined;
  /** Settles when the shell has exited. */
  ended: Promise<void>;
  markEnded: () => void;
}

const ACK = 'ack';

/** OSC 7 (`ESC ] 7 ; file://host/path BEL|ST`): the shell says where it is. */
const osc7 = /\x1b\]7;file:\/\/[^/\x07\x1b]*([^\x07\x1b]*)(?:\x07|\x1b\\)/g;

export function lastOsc7Cwd(text: string): string | undefined {
  let cwd: string | undefined;
  for (const m of text.matchAll(osc7)) {
    try {
      cwd = decodeURIComponent(m[1] ?? '');
    } catch {
      // not percent-encoded after all: the path as sent
      cwd = m[1];
    }
  }
  return cwd || undefined;
}

/** How a pane's shell ended, for whoever asked to hear it when it opened the pane (the audit line). */
export interface PaneEnd {
  exit_code: number | null;
  reason?: string;
  status: 'exited' | 'lost';
}

export class Panes {
  private readonly panes = new Map<string, Pane>();

  /** `current`: whether a snapshot's identity is still its target's (a reconnect stops once it was removed). */
  constructor(
    private readonly sessions: Sessions,
    private readonly sink: PaneSink,
    private readonly holds?: IdentityHolds,
    private readonly current: (snapshot: TargetSnapshot) => boolean = () => true,
  ) {}

  /**
   * `onId` runs before any output is sent, so the opener's connection is routed the first bytes too. `keepMs`: when
   * the last window holding the pane goes, the shell keeps running this long for one to resume it (0: it closes then).
   */
  async open(
    snapshot: TargetSnapshot,
    cols: number,
    rows: number,
    onId?: (paneId: string) => void,
    opts: {
      keepMs?: number;
      onEnd?: (end: PaneEnd) => void;
      onReconnect?: (attempt: number) => void;
      /** Start here rather than in the identity's cwd (a split's source directory, a shell started again). */
      cwd?: string;
    } = {},
  ): Promise<PaneInfo> {
    if (!snapshot.flags.supports_streams) {
      throw new SwitchboardError(
        'unsupported',
        `target "${snapshot.name}": no interactive shell on this backend`,
        'run commands with the terminal tool or `switchboard call terminal`',
      );
    }
    const env = this.sessions.environment(snapshot);
    const cwd = opts.cwd ?? (await this.sessions.personCwd(snapshot));
    // The shell starts in the nearest existing parent of a cwd that is gone; the pane's header says so.
    const missing = await env.stat(cwd).then(
      (s) => s.type !== 'directory',
      () => false,
    );
    const channel = await env.openShell({ cwd, cols, rows });
    const paneId = randomUUID();
    let markEnded: () => void = () => undefined;
    const pane: Pane = {
      snapshot,
      size: { cols, rows },
      retry: undefined,
      onEnd: opts.onEnd,
      onReconnect: opts.onReconnect,
      info: {
        pane_id: paneId,
        execution_target: snapshot.name,
        generation: snapshot.generation,
        cwd,
        status: 'open',
        ...(missing ? { cwd_missing: cwd } : {}),
      },
      channel,
      batch: new PaneBatch(paneId),
      timer: undefined,
      sentAt: 0,
      unacked: 0,
      pausedBy: new Set(),
      oscTail: Buffer.alloc(0),
      release: this.holds?.acquire(snapshot.identity) ?? (() => undefined),
      recent: new RecentOutput(),
      keepMs: Math.max(0, opts.keepMs ?? 0),
      owners: 1,
      orphanTimer: undefined,
      ended: new Promise((resolve) => (markEnded = resolve)),
      markEnded: () => markEnded(),
    };
    this.panes.set(pane.info.pane_id, pane);
    onId?.(pane.info.pane_id);
    this.wire(pane, channel);
    return { ...pane.info };
  }

  /** Sends the channel's output to the pane and hears its end: a dropped connection starts the reconnect loop. */
  private wire(pane: Pane, channel: ShellChannel): void {
    // Bytes where the channel has them: a flood then goes from the pty to a binary window without being decoded.
    if (channel.onBytes) channel.onBytes((data) => this.onData(pane, data));
    else channel.onData((data) => this.onData(pane, Buffer.from(data)));
    channel.onExit((code, reason) => {
      if (pane.channel !== channel) return;
      this.flush(pane, true);
      const live = this.panes.get(pane.info.pane_id) === pane;
      if (live && reason === exitReasons.connectionLost) return this.startReconnect(pane);
      this.end(pane, code, reason);
    });
  }

  /** The pane's shell is gone for good: said once to the audit and the windows. */
  private end(pane: Pane, code: number | null, reason?: string, detail?: string): void {
    if (pane.info.status === 'exited' || pane.info.status === 'lost') return;
    this.stopRetry(pane);
    pane.markEnded();
    const status = reason === exitReasons.connectionLost ? 'lost' : 'exited';
    pane.onEnd?.({ exit_code: code, ...(reason ? { reason } : {}), status });
    pane.info.status = status;
    delete pane.info.reconnect;
    pane.release();
    this.sink.exit(pane.info.pane_id, code, reason, detail);
    // Nobody is there to read the exit: the record goes now rather than when the keep time runs out.
    if (pane.owners === 0 && this.panes.get(pane.info.pane_id) === pane) this.close(pane.info.pane_id);
  }

  private startReconnect(pane: Pane): void {
    pane.info.status = 'reconnecting';
    pane.retry = { attempt: 0, step: 0, timer: undefined, trying: false, state: { state: 'waiting', attempt: 0 } };
    this.onData(pane, Buffer.from(lostLine(pane.snapshot.name, new Date())));
    this.flush(pane);
    this.scheduleRetry(pane, undefined, true);
  }

  private setRetryState(pane: Pane, state: PaneReconnect): void {
    if (pane.retry) pane.retry.state = state;
    pane.info.reconnect = state;
    this.sink.reconnect(pane.info.pane_id, state);
  }

  /** `onwards`: the last wait ran out (or this is the first): the next one is longer. */
  private scheduleRetry(pane: Pane, error: string | undefined, onwards: boolean): void {
    const retry = pane.retry;
    if (!retry) return;
    retry.attempt++;
    if (onwards) retry.step++;
    const wait = reconnectDelayMs(retry.step);
    retry.timer = setTimeout(() => void this.tryReconnect(pane, false), wait);
    retry.timer.unref?.();
    this.setRetryState(pane, {
      state: 'waiting',
      attempt: retry.attempt,
      retry_at: Date.now() + wait,
      ...(error ? { error } : {}),
    });
  }

  private stopRetry(pane: Pane): void {
    if (pane.retry?.timer) clearTimeout(pane.retry.timer);
    pane.retry = undefined;
  }

  /**
   * One attempt: a new shell on the same identity, in the directory the old one was last in. `early`: a person asked
   * for it before the wait ran out.
   */
  private async tryReconnect(pane: Pane, early: boolean): Promise<void> {
    const retry = pane.retry;
    if (!retry || retry.trying) return;
    if (retry.timer) clearTimeout(retry.timer);
    retry.timer = undefined;
    retry.trying = true;
    this.setRetryState(pane, { state: 'trying', attempt: retry.attempt });
    if (!this.current(pane.snapshot)) {
      const why = `target "${pane.snapshot.name}" was removed or replaced since this shell opened`;
      this.end(pane, null, exitReasons.connectionLost, `not reconnecting: ${why}`);
      return;
    }
    let channel: ShellChannel;
    try {
      const env = this.sessions.environment(pane.snapshot);
      const cwd = pane.info.cwd ?? (await this.sessions.personCwd(pane.snapshot));
      channel = await env.openShell({ cwd, ...pane.size });
    } catch (err) {
      retry.trying = false;
      if (pane.retry !== retry) return;
      const payload = toErrorPayload(err);
      if (retriesAfter(payload.code)) return this.scheduleRetry(pane, errorLine(payload), !early);
      this.end(pane, null, exitReasons.connectionLost, `not reconnecting: ${errorLine(payload)}`);
      return;
    }
    retry.trying = false;
    // Cancelled or closed while the shell was being opened: it is not wanted any more.
    if (pane.retry !== retry || this.panes.get(pane.info.pane_id) !== pane) {
      channel.kill();
      return;
    }
    this.stopRetry(pane);
    pane.channel = channel;
    pane.info.status = 'open';
    delete pane.info.reconnect;
    pane.oscTail = Buffer.alloc(0);
    // Whatever held the old shell's output back (an unacknowledged window, a full socket) holds the new one's too.
    if (pane.pausedBy.size > 0) channel.pause();
    // Above the new shell's first output (the channel keeps it until it is listened to).
    this.onData(pane, Buffer.from(reconnectedLine(pane.snapshot.name, new Date())));
    this.flush(pane);
    this.setRetryState(pane, { state: 'reconnected', attempt: retry.attempt });
    pane.onReconnect?.(retry.attempt);
    this.wire(pane, channel);
  }

  /** The person's word on a pane whose connection dropped: try `now`, or `cancel` (the pane ends as lost). */
  reconnect(paneId: string, action: 'now' | 'cancel'): void {
    const pane = this.get(paneId);
    if (!pane.retry) return;
    if (action === 'now') return void this.tryReconnect(pane, true);
    this.end(pane, null, exitReasons.connectionLost);
  }

  /** A read of the pty: copied into the batch at once (the channel may reuse its memory for the next read). */
  private onData(pane: Pane, read: Uint8Array): void {
    // A batch this read would take past its size goes first: a flood waiting for the timer would only add latency.
    if (pane.batch.bytes > 0 && pane.batch.bytes + read.length > BATCH_MAX_BYTES) this.flush(pane);
    pane.batch.add(read);
    // Paused or large: send now, so the acknowledgements that resume the pty are not held up by the timer. The first
    // output after a quiet spell (a keystroke's echo, a prompt) goes at once too: only output that keeps coming is
    // worth batching, and waiting for the timer would add its 5 ms to every keystroke.
    if (pane.pausedBy.size > 0 || pane.batch.bytes >= BATCH_MAX_BYTES) this.flush(pane);
    else if (pane.timer === undefined && performance.now() - pane.sentAt > BATCH_MS) this.flush(pane);
    else pane.timer ??= setTimeout(() => this.flush(pane), BATCH_MS);
  }

  /**
   * Follows the shell's OSC 7 in a batch about to go (once per batch, not per read: a flood's reads are 4 KB each).
   * A sequence left open at the end of a batch is kept and scanned again with the next; output without the start of
   * one (most of a flood) is neither scanned nor decoded.
   */
  private followCwd(pane: Pane, batch: Buffer): void {
    const scan = oscScanText(pane.oscTail, batch);
    if (scan === undefined) {
      pane.oscTail = openOscTail(batch);
      return;
    }
    const cwd = lastOsc7Cwd(scan);
    pane.oscTail = cwd
      ? Buffer.alloc(0)
      : openOscTail(pane.oscTail.length ? Buffer.concat([pane.oscTail, batch]) : batch);
    if (cwd && cwd !== pane.info.cwd) {
      pane.info.cwd = cwd;
      this.sink.cwd(pane.info.pane_id, cwd);
    }
  }

  private pause(pane: Pane, why: string): void {
    if (pane.pausedBy.has(why)) return;
    pane.pausedBy.add(why);
    if (pane.pausedBy.size === 1) pane.channel.pause();
  }

  private unpause(pane: Pane, why: string): void {
    if (!pane.pausedBy.delete(why)) return;
    if (pane.pausedBy.size === 0) pane.channel.resume();
  }

  /**
   * Stop reading the pty for `holder` (a connection whose socket is full) until `release` is called. The shell then
   * blocks on its own output, as with flow control, instead of the Core buffering it for a client that is not reading.
   */
  throttle(paneId: string, holder: string): () => void {
    const pane = this.panes.get(paneId);
    if (!pane) return () => undefined;
    this.pause(pane, holder);
    return () => {
      if (this.panes.get(paneId) === pane) this.unpause(pane, holder);
    };
  }

  has(paneId: string): boolean {
    return this.panes.has(paneId);
  }

  info(paneId: string): PaneInfo {
    return { ...this.get(paneId).info };
  }

  /**
   * A window takes the pane back as its own (after a reload): the close-when-unclaimed timer stops, unacknowledged
   * output of the window that went is forgotten (it will never acknowledge it), and the recent output comes back.
   */
  resume(paneId: string): PaneInfo & { scrollback: string } {
    const pane = this.get(paneId);
    if (pane.orphanTimer) clearTimeout(pane.orphanTimer);
    pane.orphanTimer = undefined;
    pane.owners++;
    pane.unacked = 0;
    this.unpause(pane, ACK);
    return { ...pane.info, scrollback: pane.recent.text() };
  }

  /**
   * A window holding the pane as its own went away; the last one leaving closes it, after the keep time if it has one.
   */
  leave(paneId: string): void {
    const pane = this.panes.get(paneId);
    if (!pane) return;
    pane.owners = Math.max(0, pane.owners - 1);
    if (pane.owners > 0) return;
    const running = pane.info.status === 'open' || pane.info.status === 'reconnecting';
    if (pane.keepMs <= 0 || !running) return this.close(paneId);
    if (pane.orphanTimer) clearTimeout(pane.orphanTimer);
    pane.orphanTimer = setTimeout(() => {
      if (this.panes.get(paneId) === pane && pane.owners === 0) this.close(paneId);
    }, pane.keepMs);
    pane.orphanTimer.unref?.();
  }

  /**
   * Sends what was read as one batch. A character cut by the read stays for the next batch, even when it is all there
   * is (it waits for the rest of its bytes), unless `all`: the pty has ended. So each batch is whole characters.
   * The pty pauses once the window has too much unacknowledged.
   */
  private flush(pane: Pane, all = false): void {
    if (pane.timer) clearTimeout(pane.timer);
    pane.timer = undefined;
    // Nothing whole yet (only part of a character): the next read brings the rest and arms the timer again.
    const taken = pane.batch.take(all);
    if (!taken) return;
    const { batch, chars } = taken;
    pane.sentAt = performance.now();
    // The cwd event goes before the output that moved it, as the shell printed them.
    this.followCwd(pane, batch);
    pane.recent.append(batch);
    pane.unacked += chars;
    if (pane.unacked > HIGH_WATERMARK) this.pause(pane, ACK);
    this.sink.data(pane.info.pane_id, batch, chars);
    // The hold `take` handed over: the replay buffer and the sockets sending it hold the frame for as long as they need
    // it.
    releaseFrame(batch);
  }

  private get(paneId: string): Pane {
    const p = this.panes.get(paneId);
    if (!p) throw new SwitchboardError('unknown_pane', `no pane ${paneId}`);
    return p;
  }

  write(paneId: string, data: string): void {
    const pane = this.get(paneId);
    // Keys typed while the connection is down go nowhere, as in a terminal whose line dropped.
    if (pane.info.status === 'open') pane.channel.write(data);
  }

  resize(paneId: string, cols: number, rows: number): void {
    const pane = this.get(paneId);
    pane.size = { cols, rows };
    if (pane.info.status === 'open') pane.channel.resize(cols, rows);
  }

  ack(paneId: string, chars: number): void {
    const p = this.get(paneId);
    p.unacked = Math.max(0, p.unacked - chars);
    if (p.unacked < LOW_WATERMARK) this.unpause(p, ACK);
  }

  close(paneId: string): void {
    const p = this.get(paneId);
    if (p.timer) clearTimeout(p.timer);
    if (p.orphanTimer) clearTimeout(p.orphanTimer);
    // A pane closed while reconnecting: no more attempts, and its shell (gone with the connection) ends now.
    if (p.retry) {
      this.stopRetry(p);
      p.markEnded();
      p.onEnd?.({ exit_code: null, reason: exitReasons.connectionLost, status: 'lost' });
    }
    p.channel.kill();
    p.release();
    this.panes.delete(paneId);
  }

  /** The window cleared the screen: what a resuming window replays starts at the pane's current line. */
  clear(paneId: string): void {
    this.get(paneId).recent.clearToCurrentLine();
  }

  list(): PaneInfo[] {
    return [...this.panes.values()].map((p) => ({ ...p.info }));
  }

  /**
   * Closes every pane (the Core is stopping) and waits until their shells have exited, at most `waitMs`: a local shell
   * deaf to SIGHUP is killed a moment after it (backends/local/pty.ts), and must not outlive the Core.
   */
  async closeAll(waitMs = CLOSE_ALL_WAIT_MS): Promise<void> {
    const ended = Promise.all([...this.panes.values()].map((p) => p.ended));
    for (const id of [...this.panes.keys()]) this.close(id);
    await settleWithin(ended, waitMs);
  }
}
