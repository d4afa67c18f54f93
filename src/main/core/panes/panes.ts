// Interactive terminal panes: a shell channel per pane, output batched and flow-controlled on its own path.
import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../../shared/errors.js';
import type { PaneInfo } from '../../../shared/api.js';
import type { ShellChannel, TargetSnapshot } from '../backends/provider.js';
import type { Sessions } from '../sessions/sessions.js';
import type { IdentityHolds } from '../sessions/identityHolds.js';

/** VS Code's numbers: pause above this many unacknowledged chars, resume below the low mark. */
export const HIGH_WATERMARK = 100_000;
export const LOW_WATERMARK = 5_000;
const BATCH_MS = 5;
/** A batch this large goes out at once: waiting for the timer would only add latency to a flood. */
const BATCH_MAX_CHARS = 64 * 1024;

export interface PaneSink {
  data(paneId: string, data: string): void;
  cwd(paneId: string, cwd: string): void;
  exit(paneId: string, exitCode: number | null, reason?: string): void;
}

interface Pane {
  info: PaneInfo;
  channel: ShellChannel;
  buffer: string;
  timer: NodeJS.Timeout | undefined;
  unacked: number;
  /** Why the pty is not read: 'ack' (the renderer is behind) or a slow connection's key. Read again when empty. */
  pausedBy: Set<string>;
  oscTail: string;
  /** Gives back the hold on the pane's identity (on exit or close). */
  release: () => void;
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
      cwd = m[1];
    }
  }
  return cwd || undefined;
}

export class Panes {
  private readonly panes = new Map<string, Pane>();

  constructor(private readonly sessions: Sessions, private readonly sink: PaneSink, private readonly holds?: IdentityHolds) {}

  /** `onId` runs before any output is sent, so the opener's connection is routed the first bytes too. */
  async open(snapshot: TargetSnapshot, cols: number, rows: number, onId?: (paneId: string) => void): Promise<PaneInfo> {
    if (!snapshot.flags.supports_pty) throw new SwitchboardError('unsupported', `target "${snapshot.name}" has no interactive shell`);
    const env = this.sessions.environment(snapshot);
    const cwd = await this.sessions.cwd(snapshot);
    const channel = await env.openShell({ cwd, cols, rows });
    const pane: Pane = {
      info: { pane_id: randomUUID(), execution_target: snapshot.name, generation: snapshot.generation, cwd, status: 'open' },
      channel,
      buffer: '',
      timer: undefined,
      unacked: 0,
      pausedBy: new Set(),
      oscTail: '',
      release: this.holds?.acquire(snapshot.identity) ?? (() => undefined),
    };
    this.panes.set(pane.info.pane_id, pane);
    onId?.(pane.info.pane_id);
    channel.onData((data) => this.onData(pane, data));
    channel.onExit((code, reason) => {
      this.flush(pane);
      pane.info.status = reason === 'connection lost' ? 'lost' : 'exited';
      pane.release();
      this.sink.exit(pane.info.pane_id, code, reason);
    });
    return { ...pane.info };
  }

  private onData(pane: Pane, data: string): void {
    // Scan for OSC 7 across chunk boundaries by keeping a short tail of the previous chunk.
    const scan = pane.oscTail + data;
    const cwd = lastOsc7Cwd(scan);
    pane.oscTail = scan.slice(-512);
    if (cwd && cwd !== pane.info.cwd) {
      pane.info.cwd = cwd;
      pane.oscTail = '';
      this.sink.cwd(pane.info.pane_id, cwd);
    }
    pane.buffer += data;
    pane.unacked += data.length;
    if (pane.unacked > HIGH_WATERMARK) this.pause(pane, ACK);
    // Paused or large: send now, so the acknowledgements that resume the pty are not held up by the timer.
    if (pane.pausedBy.size > 0 || pane.buffer.length >= BATCH_MAX_CHARS) this.flush(pane);
    else pane.timer ??= setTimeout(() => this.flush(pane), BATCH_MS);
  }

  private pause(pane: Pane, why: string): void {
    if (pane.pausedBy.has(why)) return;
    pane.pausedBy.add(why);
    if (pane.pausedBy.size === 1) pane.channel.pause();
  }

  private resume(pane: Pane, why: string): void {
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
      if (this.panes.get(paneId) === pane) this.resume(pane, holder);
    };
  }

  has(paneId: string): boolean {
    return this.panes.has(paneId);
  }

  info(paneId: string): PaneInfo {
    return { ...this.get(paneId).info };
  }

  private flush(pane: Pane): void {
    if (pane.timer) clearTimeout(pane.timer);
    pane.timer = undefined;
    if (!pane.buffer) return;
    const data = pane.buffer;
    pane.buffer = '';
    this.sink.data(pane.info.pane_id, data);
  }

  private get(paneId: string): Pane {
    const p = this.panes.get(paneId);
    if (!p) throw new SwitchboardError('unknown_pane', `no pane ${paneId}`);
    return p;
  }

  write(paneId: string, data: string): void {
    this.get(paneId).channel.write(data);
  }

  resize(paneId: string, cols: number, rows: number): void {
    this.get(paneId).channel.resize(cols, rows);
  }

  ack(paneId: string, chars: number): void {
    const p = this.get(paneId);
    p.unacked = Math.max(0, p.unacked - chars);
    if (p.unacked < LOW_WATERMARK) this.resume(p, ACK);
  }

  close(paneId: string): void {
    const p = this.get(paneId);
    if (p.timer) clearTimeout(p.timer);
    p.channel.kill();
    p.release();
    this.panes.delete(paneId);
  }

  list(): PaneInfo[] {
    return [...this.panes.values()].map((p) => ({ ...p.info }));
  }

  closeAll(): void {
    for (const id of [...this.panes.keys()]) this.close(id);
  }
}
