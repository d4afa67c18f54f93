// Crossing a sandbox's PID namespace from the Core: inside, a shell reports namespace pids (its `$BASHPID` is 3, not
// the host's 41213). The host's /proc says, for each process, which pid namespace it is in (`ns/pid`) and its ids
// in each namespace from the host's down (`NSpid:`, `NSpgid:` in `status`), so a namespace's process group maps to
// the host group the Core can signal. Read only when something is killed, never on a call's way.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One process of a sandbox, as the host sees it. */
export interface NamespaceMember {
  hostPid: number;
  hostPgid: number;
  nsPid: number;
  nsPgid: number;
  /** Ended, not yet reaped: nothing left to signal. */
  zombie: boolean;
}

/** `NSpid:\t41213\t3` → [41213, 3]: the ids from the host's namespace down to the process's own. */
export function namespaceIds(status: string, field: 'NSpid' | 'NSpgid'): number[] {
  const line = new RegExp(`^${field}:\\s*(.*)$`, 'm').exec(status);
  return line ? line[1]!.trim().split(/\s+/).map(Number) : [];
}

function readOr(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    return undefined; // the process ended while it was looked at, or is not ours to read
  }
}

/** A process's children (host pids); none once it is gone. */
export function childrenOf(pid: number): number[] {
  return (
    readOr(() => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8'))
      ?.trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number) ?? []
  );
}

/**
 * The pid namespace (`pid:[inode]`) a bwrap process made: its child is the namespace's init. Undefined once it is gone.
 */
export function namespaceOf(bwrapPid: number): string | undefined {
  for (const c of childrenOf(bwrapPid)) {
    const ns = readOr(() => readlinkSync(`/proc/${c}/ns/pid`));
    const own = readOr(() => readlinkSync(`/proc/${bwrapPid}/ns/pid`));
    if (ns && ns !== own) return ns;
  }
  return undefined;
}

/** Every process in the namespace `ns`, by a scan of the host's /proc. */
export function namespaceMembers(ns: string): NamespaceMember[] {
  const out: NamespaceMember[] = [];
  for (const name of readOr(() => readdirSync('/proc').join('\n'))?.split('\n') ?? []) {
    if (!/^\d+$/.test(name)) continue;
    if (readOr(() => readlinkSync(`/proc/${name}/ns/pid`)) !== ns) continue;
    const status = readOr(() => readFileSync(`/proc/${name}/status`, 'utf8'));
    if (!status) continue;
    const pid = namespaceIds(status, 'NSpid');
    const pgid = namespaceIds(status, 'NSpgid');
    if (pid.length < 2 || pgid.length < 2) continue;
    out.push({
      hostPid: pid[0]!,
      nsPid: pid[pid.length - 1]!,
      hostPgid: pgid[0]!,
      nsPgid: pgid[pgid.length - 1]!,
      zombie: /^State:\s*Z/m.test(status),
    });
  }
  return out;
}

/** The host's id of the namespace's process group `nsPgid` (found through any member, the leader may be gone). */
export function hostGroup(ns: string, nsPgid: number): number | undefined {
  return namespaceMembers(ns).find((m) => m.nsPgid === nsPgid)?.hostPgid;
}
