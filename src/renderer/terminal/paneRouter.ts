// Routes pane.data / pane.cwd / pane.exit from the one Core connection straight to the terminal session that owns the
// pane.
import { core } from '../client/core.js';

/** A batch of output: a string (JSON event) or UTF-8 bytes (binary frame); `chars` is what acknowledging it counts. */
export interface PaneSink {
  data(data: string | Uint8Array, chars: number): void;
  cwd(cwd: string): void;
  exit(exitCode: number | null, reason?: string): void;
}

const sinks = new Map<string, PaneSink>();

/** Output for a pane id not registered yet (an open whose reply is still in flight); dropped after a few seconds. */
interface Early {
  data: Array<{ data: string | Uint8Array; chars: number }>;
  size: number;
  cwd?: string;
  exit?: { code: number | null; reason?: string };
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
core.on('pane.exit', ({ pane_id, exit_code, reason }) => {
  const sink = sinks.get(pane_id);
  if (sink) sink.exit(exit_code, reason);
  else earlyFor(pane_id).exit = reason === undefined ? { code: exit_code } : { code: exit_code, reason };
});

export function registerPane(paneId: string, sink: PaneSink): () => void {
  sinks.set(paneId, sink);
  const e = early.get(paneId);
  if (e) {
    early.delete(paneId);
    for (const d of e.data) sink.data(d.data, d.chars);
    if (e.cwd) sink.cwd(e.cwd);
    if (e.exit) sink.exit(e.exit.code, e.exit.reason);
  }
  return () => {
    if (sinks.get(paneId) === sink) sinks.delete(paneId);
  };
}
