// Whether a process, or any process of a process group, still exists (signal 0, and /proc for a zombie): only node:fs,
// so the CLI's smallest entries can use it.
import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` runs (EPERM: it does, but belongs to someone else; a zombie does not); a negative `pid` asks
 * for any process of the group `-pid`. Asked after every tool call, where the answer is mostly ESRCH: the error is
 * built without a stack trace, which would cost more than the kill.
 */
export function pidAlive(pid: number): boolean {
  const stackDepth = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    process.kill(pid, 0);
    return pid < 0 || !isZombie(pid);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' && !isZombie(pid);
  } finally {
    Error.stackTraceLimit = stackDepth;
  }
}

/**
 * A zombie has exited: only its exit status is left, for a parent that has not read it yet (or never will: a
 * container whose first process reaps nothing). It holds no lock and serves nothing. Linux says so in /proc; where
 * there is no /proc, signal 0 alone decides.
 */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    // no /proc (macOS), or the process is gone already
    return false;
  }
  // `pid (comm) S …`: the state follows the last `)`, as comm may hold one.
  return stat[stat.lastIndexOf(')') + 2] === 'Z';
}

/** Whether any process is still in the group `pgid` (the leader may be gone while its children live on). */
export function groupAlive(pgid: number): boolean {
  return pidAlive(-pgid);
}
