// Ending what Switchboard started, the one way every path ends a shell (a timeout, a cancel, a retired warm shell, a
// closed pane, cleanup, the Core's stop): SIGHUP and SIGTERM first, so traps run and rc files let go of their locks,
// SIGKILL only after a grace. A shell SIGKILLed inside root's `pyenv rehash` left its lock behind, and every later
// login shell waited 60 s for it. Ends still under way are tracked, so that a caller may be answered before the grace
// is over while the Core's stop still waits for them (endsSettled).
import { readdirSync, readFileSync } from 'node:fs';
import { groupAlive } from './processAlive.js';
import endGroupProgram from './endGroup.sh';

/** How long a shell has, after the gentle signals, before it is killed. */
export const END_GRACE_MS = 2000;

/** The gentle signals, in the order they are sent: a hangup (as a closed terminal sends), then a plain TERM. */
export const GENTLE_SIGNALS = ['SIGHUP', 'SIGTERM'] as const satisfies readonly NodeJS.Signals[];

/** The same signals by their shell names (`kill -HUP`), for scripts that end processes on a host or in a container. */
export type GentleSignalName = 'HUP' | 'TERM';
export const GENTLE_SIGNAL_NAMES: readonly GentleSignalName[] = ['HUP', 'TERM'];

/** How often an ending group is looked at. */
const POLL_MS = 50;
/** A group still there this long after its SIGKILL cannot be killed (uninterruptible sleep): stop waiting for it. */
const UNKILLABLE_MS = 1000;

const underway = new Set<Promise<void>>();

/** Track an end under way until it settles: the Core's stop waits for every one (endsSettled). */
export function tracked(end: Promise<void>): Promise<void> {
  const settled = end.catch(() => undefined); // only waits for the end; the caller awaits `end` itself
  underway.add(settled);
  void settled.then(() => underway.delete(settled));
  return end;
}

/** Resolves once every end under way (and any started meanwhile) has settled. */
export async function endsSettled(): Promise<void> {
  while (underway.size > 0) await Promise.all([...underway]);
}

/** Send `sig` to `pid` (a negative pid: a group); false when there is nothing to signal (gone, or not ours). */
export function sendSignal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    // no such process (gone already), or not ours to signal
    return false;
  }
}

/**
 * End a host process group: the gentle signals, then SIGKILL once the grace is over. Works after the group's leader
 * has exited too (`cmd &` leaves its children in the group). Resolves once the group is gone, or a moment after its
 * SIGKILL when something in it cannot be killed. Tracked (see endsSettled).
 */
export function endGroup(pgid: number, graceMs = END_GRACE_MS): Promise<void> {
  if (!groupAlive(pgid)) return Promise.resolve();
  if (!GENTLE_SIGNALS.map((sig) => sendSignal(-pgid, sig)).some(Boolean)) return Promise.resolve();
  return tracked(
    untilGone(
      () => groupAlive(pgid) && groupHasLiveMember(pgid),
      () => sendSignal(-pgid, 'SIGKILL'),
      graceMs,
    ),
  );
}

/**
 * Whether a member of group `pgid` is more than a zombie, from /proc (elsewhere, any member counts): a member that died
 * but was not reaped yet (its parent died first, and init reaps slowly on some hosts) answers signal 0, and kept an
 * end waiting its whole grace. Read only while an end waits.
 */
export function groupHasLiveMember(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    // no /proc (macOS): signal 0 is all there is to go by
    return true;
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    } catch {
      // gone meanwhile
      continue;
    }
    // After the command name's last ") ": state, ppid, process group.
    const [state, , group] = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    if (Number(group) === pgid && state !== 'Z') return true;
  }
  return false;
}

/**
 * Wait while `alive()`: after `graceMs`, `kill()` once; a moment after that, stop waiting. The shared tail of every
 * local end (a host group, a sandbox's processes).
 */
export function untilGone(alive: () => boolean, kill: () => void, graceMs = END_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    const started = Date.now();
    let killed = false;
    const tick = setInterval(() => {
      const waited = Date.now() - started;
      if (!alive() || waited >= graceMs + UNKILLABLE_MS) {
        clearInterval(tick);
        resolve();
      } else if (!killed && waited >= graceMs) {
        killed = true;
        kill();
      }
    }, POLL_MS);
  });
}

/**
 * POSIX sh that ends the process group `pgid` the same way where the Core cannot signal it itself (an SSH host):
 * endGroup.sh after a line that sets its values: the gentle signals, a wait of up to the grace while any of the group
 * lives, then KILL. "Lives" leaves zombies out where `ps` says which they are: a member that died but was not reaped
 * yet (its parent died first, and init reaps slowly on some hosts) answers `kill -0`, and kept a kill waiting its
 * whole grace.
 */
export function endGroupScript(pgid: number, graceMs = END_GRACE_MS): string {
  // Numbers and signal names: nothing in them needs quoting beyond the one word of names.
  const values = `__sb_g=${Math.trunc(pgid)}; __sb_sigs='${GENTLE_SIGNAL_NAMES.join(' ')}'`;
  return `${values}; __sb_tenths=${Math.ceil(graceMs / 100)}\n${endGroupProgram}`;
}
