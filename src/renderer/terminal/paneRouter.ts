// Routes pane.data / pane.cwd / pane.exit from the one Core connection straight to the terminal session that owns the
// pane.
import type { PaneReconnect } from '../../shared/api.js';
import { core } from '../client/core.js';

/** A batch of output: a string (JSON event) or UTF-8 bytes (binary frame); `chars` is what acknowledging it counts. */
export interface PaneSink {
  data(data: string | Uint8Array, chars: number): void;
  cwd(cwd: string): void;
  /** `detail`: why a pane whose connection dropped was not reconnected. */
  exit(exitCode: number | null, reason?: string, detail?: string): void;
  reconnect(state: PaneReconnect): void;
}

const sinks = new Map<string, PaneSink>();

/** Output for a pane id not registered yet (an open whose reply is still in flight); dropped after a few seconds. */
interface Early {
  data: Array<{ data: string | Uint8Array; chars: number }>;
  size: number;
  cwd?: string;
  exit?: { code: number | null; reason?: string; detail?: string };
  reconnect?: PaneReconnect;
  at: number;
}
const early = new Map<string, Early>();
const EARLY_TTL_MS = 3000;
const EARLY_MAX_CHARS = 256 * 1024;

function earlyFor(paneId: string): Early {
  const now = Date.now();
  for (const [id, e] of early) if (now - e.at > EARLY_TTL_MS) early.delete(id);
  let e = early.get(paneId);
  if (!e) early.set(paneId, (e = { data: [], size: 0, at: now }));
  return e;
}

core.on('pane.data', ({ pane_id, data, chars }) => {
  const n = chars ?? data.length;
  const sink = sinks.get(pane_id);
  if (sink) return sink.data(data, n);
  const e = earlyFor(pane_id);
  if (e.size + n <= EARLY_MAX_CHARS) {
    e.data.push({ data, chars: n });
    e.size += n;
  }
});
core.on('pane.cwd', ({ pane_id, cwd }) => {
  const sink = sinks.get(pane_id);
  if (sink) sink.cwd(cwd);
  else earlyFor(pane_id).cwd = cwd;
});
core.on('pane.exit', ({ pane_id, exit_code, reason, detail }) => {
  const sink = sinks.get(pane_id);
  if (sink) sink.exit(exit_code, reason, detail);
  else earlyFor(pane_id).exit = { code: exit_code, ...(reason ? { reason } : {}), ...(detail ? { detail } : {}) };
});
core.on('pane.reconnect', ({ pane_id, ...state }) => {
  const sink = sinks.get(pane_id);
  if (sink) sink.reconnect(state);
  else earlyFor(pane_id).reconnect = state;
});

export function registerPane(paneId: string, sink: PaneSink): () => void {
  sinks.set(paneId, sink);
  const e = early.get(paneId);
  if (e) {
    early.delete(paneId);
    for (const d of e.data) sink.data(d.data, d.chars);
    if (e.cwd) sink.cwd(e.cwd);
    if (e.reconnect) sink.reconnect(e.reconnect);
    if (e.exit) sink.exit(e.exit.code, e.exit.reason, e.exit.detail);
  }
  return () => {
    if (sinks.get(paneId) === sink) sinks.delete(paneId);
  };
}
