// How many processes and how much memory one sandbox may take, so that a fork flood or a runaway build stays inside
// it: a cgroup of its own where this machine gives the Core one (root, or a delegated cgroup v2 tree), else a limit
// on processes through RLIMIT_NPROC; what could not be had is said (the target's probe, doctor), never assumed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, writeFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { pidAlive } from '../platform/index.js';

/** Processes a sandbox may run at once, unless its setting says otherwise. */
export const DEFAULT_MAX_PROCESSES = 2048;
/** Memory a sandbox may use, unless its setting says otherwise: half of this machine's. */
export const defaultMaxMemoryMb = (): number => Math.floor(totalmem() / 2 / 1024 / 1024);

/** What one sandbox's runs are held to: the command a run is started through, and what it says of itself. */
export interface AppliedLimits {
  /** Put before a run's command line (a process that joins the cgroup, or sets the limit, then runs it). */
  prefix: string[];
  /** "processes ≤ 2048, memory ≤ 12 GiB (cgroup v2)", or what could not be had and why. */
  describe: string;
  /** Remove the sandbox's cgroup once nothing is left in it. */
  release(): void;
}

/** The cgroup folders this machine offers the Core for a new child, per controller (pids, memory). */
interface CgroupHome {
  version: 1 | 2;
  /** Where a sandbox's cgroup goes, per controller (v2: one folder for both). */
  parents: { pids?: string; memory?: string };
}

let home: CgroupHome | undefined | null = null;

function writable(dir: string): boolean {
  try {
    const probe = join(dir, `switchboard-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return true;
  } catch {
    return false; // not ours to make cgroups in
  }
}

/** This process's cgroup paths, by controller ('' for v2's one hierarchy). */
function ownCgroups(): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    for (const c of m[1]!.split(',')) out.set(c, m[2]!);
  }
  return out;
}

/** The name of a sandbox's cgroup: the Core's pid first, so that a Core can tell its own from a dead one's. */
const cgroupName = (id: string): string => `switchboard-${process.pid}-${id}`;

/** Remove the empty cgroups of Cores that are gone (a killed Core leaves its sandboxes' behind). */
function sweep(parent: string): void {
  for (const name of readdirSync(parent)) {
    const pid = /^switchboard-(\d+)-/.exec(name)?.[1];
    if (!pid || pidAlive(Number(pid))) continue;
    try {
      rmdirSync(join(parent, name));
    } catch {
      // something still runs in it (a sandbox that outlived its Core): left for the next sweep
    }
  }
}

/** Where this machine lets the Core make cgroups (asked once per process; the dead Cores' leftovers go). */
function cgroupHome(): CgroupHome | undefined {
  if (home !== null) return home;
  home = findCgroupHome();
  for (const parent of new Set([home?.parents.pids, home?.parents.memory]))
    if (parent) {
      try {
        sweep(parent);
      } catch {
        // unreadable: nothing to sweep
      }
    }
  return home;
}

function findCgroupHome(): CgroupHome | undefined {
  let home: CgroupHome | undefined;
  try {
    const own = ownCgroups();
    const v2 = own.get('');
    if (existsSync('/sys/fs/cgroup/cgroup.controllers') && v2 !== undefined && own.size === 1) {
      // The no-internal-processes rule: a cgroup with the Core in it cannot hand controllers to children, so the
      // sandboxes' cgroups go beside the Core's, under a folder of their own.
      const base = join('/sys/fs/cgroup', v2 === '/' ? '' : dirname(v2), 'switchboard-sandboxes');
      if (!existsSync(base)) mkdirSync(base);
      const parentControl = join(dirname(base), 'cgroup.subtree_control');
      for (const c of ['pids', 'memory']) {
        try {
          writeFileSync(parentControl, `+${c}`);
          writeFileSync(join(base, 'cgroup.subtree_control'), `+${c}`);
        } catch {
          // not delegated to us: that limit is said to be missing
        }
      }
      const enabled = readFileSync(join(base, 'cgroup.subtree_control'), 'utf8');
      if (writable(base))
        home = {
          version: 2,
          parents: {
            ...(/\bpids\b/.test(enabled) ? { pids: base } : {}),
            ...(/\bmemory\b/.test(enabled) ? { memory: base } : {}),
          },
        };
      return home;
    }
    const parents: CgroupHome['parents'] = {};
    for (const c of ['pids', 'memory'] as const) {
      const mount = join('/sys/fs/cgroup', c);
      const path = own.get(c);
      if (path !== undefined && existsSync(join(mount, 'cgroup.procs'))) {
        const dir = join(mount, path);
        if (writable(dir)) parents[c] = dir;
      }
    }
    if (parents.pids || parents.memory) home = { version: 1, parents };
  } catch {
    home = undefined; // no cgroups we may use: the fallbacks say so
  }
  return home;
}

/** How many processes this uid runs now (RLIMIT_NPROC counts them all, the person's own included). */
function processesOfUid(uid: number): number {
  let n = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(readFileSync(`/proc/${pid}/status`, 'utf8'))) n++;
    } catch {
      // gone meanwhile
    }
  }
  return n;
}

const gib = (mb: number): string => (mb >= 1024 ? `${(mb / 1024).toFixed(mb % 1024 ? 1 : 0)} GiB` : `${mb} MiB`);

/** The joining step: the shell that writes itself into each cgroup, then becomes the command (exec). */
const JOIN = 'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n - 1)); done; exec "$@"';

/** The limits of one sandbox (`id` names its cgroup), from its setting and what this machine offers. */
export function applyLimits(id: string, setting: { max_processes?: number; max_memory_mb?: number }): AppliedLimits {
  const processes = setting.max_processes ?? DEFAULT_MAX_PROCESSES;
  const memory = setting.max_memory_mb ?? defaultMaxMemoryMb();
  const cg = process.platform === 'linux' ? cgroupHome() : undefined;
  const made: string[] = [];
  const procs: string[] = [];
  const said: string[] = [];
  if (cg) {
    const make = (parent: string): string => {
      const dir = join(parent, cgroupName(id));
      if (!existsSync(dir)) mkdirSync(dir);
      if (!made.includes(dir)) made.push(dir), procs.push(join(dir, 'cgroup.procs'));
      return dir;
    };
    try {
      if (cg.parents.pids) {
        writeFileSync(join(make(cg.parents.pids), 'pids.max'), String(processes));
        said.push(`processes ≤ ${processes}`);
      }
      if (cg.parents.memory) {
        const dir = make(cg.parents.memory);
        const bytes = String(memory * 1024 * 1024);
        writeFileSync(join(dir, cg.version === 2 ? 'memory.max' : 'memory.limit_in_bytes'), bytes);
        said.push(`memory ≤ ${gib(memory)}`);
      }
    } catch (err) {
      said.push(`(a cgroup could not be set up: ${(err as Error).message})`);
    }
  }
  const release = (): void => {
    for (const dir of made) {
      try {
        rmdirSync(dir);
      } catch {
        // something still runs in it (a sandbox of this identity that outlives this one): it goes with its last
      }
    }
  };
  const via = cg ? ` (cgroup v${cg.version})` : '';
  const prefix = procs.length ? ['/bin/sh', '-c', JOIN, 'sh', String(procs.length), ...procs] : [];
  if (!said.some((s) => s.startsWith('processes'))) {
    // RLIMIT_NPROC counts every process of the uid (root's are never counted): the sandbox may add this many more.
    const uid = process.getuid?.();
    if (uid !== undefined && uid !== 0 && hasPrlimit()) {
      const cap = processesOfUid(uid) + processes;
      prefix.push('prlimit', `--nproc=${cap}:${cap}`, '--');
      said.push(`processes ≤ ${processes} more than this user runs (RLIMIT_NPROC)`);
    } else said.push('processes not limited (no cgroup here for the Core)');
  }
  if (!said.some((s) => s.startsWith('memory')))
    said.push(
      'memory not limited (no cgroup with the memory controller here for the Core; ' +
        'a Core run under systemd --user or as root gets one)',
    );
  return { prefix, describe: `${said.join(', ')}${via}`, release };
}

let prlimit: boolean | undefined;
function hasPrlimit(): boolean {
  return (prlimit ??= spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status === 0);
}
