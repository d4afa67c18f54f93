// Which Core run started a process: every process gets SB_CORE_RUN=<run id>, so what a Core that died without
// cleaning up (kill -9, a power cut) left running is found and ended by the next one, on every backend.
//
// One file per run under state/runs/. A clean stop marks its file clean; a file that is not clean and whose pid is
// gone belongs to a crashed run. Remote targets are swept when the next run first reaches them, so the ids of
// crashed runs are carried from run to run for a week (a target may not be used again for a while).
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import {
  atomicWriteSync,
  namingFailure,
  pidAlive,
  END_GRACE_MS,
  GENTLE_SIGNAL_NAMES,
  GENTLE_SIGNALS,
  sendSignal,
  tracked,
  untilGone,
} from '../platform/index.js';
import { join } from 'node:path';
import * as z from 'zod';

/** The variable every started process carries; children inherit it. Not SWITCHBOARD_*: that prefix is stripped. */
export const RUN_VARIABLE = 'SB_CORE_RUN';
const CARRY_MS = 7 * 24 * 3600 * 1000;

const RunFile = z.object({
  pid: z.number().int(),
  started_at: z.number(),
  clean: z.boolean(),
  carry: z.array(z.string()),
});
type RunFile = z.infer<typeof RunFile>;

/** Run ids start with their start time (base 36), so an old one can be dropped without reading anything else. */
function startedAt(id: string): number {
  return parseInt(id.split('-')[0] ?? '', 36);
}

/** What a run's mark is written for, as a failure to write it says. */
const MARKING = 'starting the Core (marking this run, so that what a crash leaves running is ended next time)';

export class CoreRuns {
  readonly id = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
  private readonly startedAt = Date.now();
  /** Runs whose processes may still be running with nobody tracking them. */
  readonly stale: readonly string[];
  private readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, 'state', 'runs');
    namingFailure({ path: this.dir, action: 'create', doing: MARKING }, () =>
      mkdirSync(this.dir, { recursive: true, mode: 0o700 }),
    );
    const stale = new Set<string>();
    for (const name of readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue;
      const id = name.slice(0, -5);
      let run: RunFile | undefined;
      try {
        run = RunFile.parse(JSON.parse(readFileSync(join(this.dir, name), 'utf8')));
      } catch {
        run = undefined; // unreadable: half-written by a run that died writing it, so a crashed one
      }
      // A run whose process still lives is left alone (its pid may have been reused; then a later start sweeps it).
      if (run && !run.clean && run.pid !== process.pid && pidAlive(run.pid)) continue;
      if (!run?.clean) stale.add(id);
      for (const carried of run?.carry ?? []) stale.add(carried);
      rmSync(join(this.dir, name), { force: true });
    }
    this.stale = [...stale].filter((id) => Date.now() - startedAt(id) < CARRY_MS);
    this.write(false);
  }

  /** The environment every process of this run is started with. */
  marker(): Record<string, string> {
    return { [RUN_VARIABLE]: this.id };
  }

  /**
   * Mark this run ended cleanly. On a disk too full for a temp file the mark is rewritten in place (no shorter than
   * it was: `"clean":true` is shorter than `false`, so it takes no new block): a mark cut by a crash reads as a crashed
   * run's, which the run would be without it. Only when even that fails does the stop say so, once, and the next Core
   * takes the run for a crashed one and sweeps again; what the run started was ended either way.
   */
  finish(): void {
    try {
      this.write(true);
    } catch (err) {
      try {
        this.rewriteInPlace(true);
      } catch {
        // said on stderr; the next start sweeps again
        process.stderr.write(
          `switchboard: could not mark this run as ended cleanly (${(err as Error).message}); ` +
            `the next start sweeps again\n`,
        );
      }
    }
  }

  private file(): string {
    return join(this.dir, `${this.id}.json`);
  }

  private body(clean: boolean): string {
    return JSON.stringify({
      pid: process.pid,
      started_at: this.startedAt,
      clean,
      carry: [...this.stale],
    } satisfies RunFile);
  }

  private write(clean: boolean): void {
    atomicWriteSync(
      this.file(),
      this.body(clean),
      0o600,
      clean ? 'stopping the Core (marking this run ended cleanly)' : MARKING,
    );
  }

  private rewriteInPlace(clean: boolean): void {
    const text = Buffer.from(this.body(clean));
    const fd = openSync(this.file(), 'r+');
    try {
      writeSync(fd, text, 0, text.length, 0);
      ftruncateSync(fd, text.length);
    } finally {
      closeSync(fd);
    }
  }
}

/** The variable that names one call's processes, so a call cut off from its target can be ended once it is back. */
export const CALL_VARIABLE = 'SB_CORE_CALL';

/**
 * Set on the processes of agent work (tool calls, background processes), never on a person's pane: the person check
 * (transport/approverCheck.ts) refuses a process that carries it. A tripwire for unsandboxed targets only — a process
 * can drop its own variables — where a sandbox's namespaces are the real line.
 */
export const AGENT_VARIABLE = 'SB_AGENT_WORK';

/** `NAME=value` lines that mark the processes of crashed runs. */
export function runMarks(runs: readonly string[]): string[] {
  return runs.map((id) => `${RUN_VARIABLE}=${id}`);
}

/**
 * A POSIX sh script that ends every process whose environment holds one of `marks` (`NAME=value`; gently: HUP and
 * TERM, then KILL after the grace, processes/endGently.ts) and prints how many it found. It reads /proc, so it works on
 * Linux hosts and containers (busybox).
 */
export function sweepScript(marks: readonly string[]): string {
  const patterns = marks.map((m) => `-e '${m.replace(/[^A-Za-z0-9_=-]/g, '')}'`).join(' ');
  return [
    'self=$$; pids=',
    'for e in /proc/[0-9]*/environ; do',
    '  p=${e#/proc/}; p=${p%/environ}',
    '  [ "$p" = "$self" ] && continue',
    `  if tr '\\000' '\\n' < "$e" 2>/dev/null | grep -qx ${patterns}; then pids="$pids $p"; fi`,
    'done',
    'set -- $pids',
    `if [ $# -gt 0 ]; then ${GENTLE_SIGNAL_NAMES.map((sig) => `kill -${sig} $pids 2>/dev/null`).join('; ')}; ` +
      `sleep ${END_GRACE_MS / 1000}; kill -KILL $pids 2>/dev/null; fi`,
    'echo "swept $#"',
  ].join('\n');
}

function namespaceOf(pid: string): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    // no /proc or no such process: its namespace is unknown
    return undefined;
  }
}

/** The same sweep on this machine, in process (no shell per process): the pids it ended. */
export function sweepLocal(runs: readonly string[]): number[] {
  if (runs.length === 0) return [];
  const wanted = new Set(runMarks(runs));
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return []; // no /proc (not Linux): nothing can be found this way
  }
  // This machine's own processes: this user, this pid namespace. Another user's (an SSH target on this host) and a
  // container's are swept through their own targets, as they would be on another machine.
  const uid = process.getuid?.();
  const ns = namespaceOf('self');
  for (const name of entries) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    let environ: string;
    try {
      if (uid !== undefined && statSync(`/proc/${name}`).uid !== uid) continue;
      if (namespaceOf(name) !== ns) continue;
      environ = readFileSync(`/proc/${name}/environ`, 'latin1');
    } catch {
      continue; // gone, or not readable
    }
    if (environ.split('\0').some((kv) => wanted.has(kv))) found.push(Number(name));
  }
  for (const sig of GENTLE_SIGNALS) for (const pid of found) sendSignal(pid, sig);
  if (found.length > 0)
    void tracked(
      untilGone(
        () => found.some(pidAlive),
        () => found.forEach((pid) => sendSignal(pid, 'SIGKILL')),
      ),
    );
  return found;
}
