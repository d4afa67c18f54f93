// An exclusive cross-process lock on a file path that survives SIGKILL of its holder (Node has no flock).
//
// The lock is a directory `<path>.lock/` that is never empty while held: it holds exactly one
// owner file whose name says who holds it (`pid-<pid>-t-<ms>-h-<host>-<nonce>`).
//  - acquire: build `<path>.lock.tmp-<pid>-<nonce>/<owner>` and rename it onto `<path>.lock`.
//    rename(2) of a directory succeeds only when the destination is missing or an *empty*
//    directory, so exactly one process wins, atomically.
//  - release: unlink our own owner file, then rmdir (which fails harmlessly if someone else's
//    lock is already there — their directory is never empty).
//  - stale takeover: when the owner's pid is dead (same host) or the lock is far too old, unlink
//    *that* owner file by its unique name, then rmdir. A waiter can never remove a lock newer
//    than the one it judged stale: the name it unlinks belongs to that one acquisition only.
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, unlinkSync, writeFileSync, lstatSync } from 'node:fs';
import { randomBytes, createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SwitchboardError } from '../../../shared/errors.js';
import { pidAlive } from './processAlive.js';
import { backoffMs, jittered } from '../platform/backoff.js';

export interface LockOptions {
  /** How long to wait for the holder before giving up with registry_busy. */
  timeoutMs?: number;
  /** A lock held longer than this is taken over even if its pid seems alive (pid reuse, other host). */
  staleMs?: number;
}

export const LOCK_TIMEOUT_MS = 5_000;
const STALE_MS = 60_000;

const hostTag = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

interface Owner {
  file: string;
  pid: number;
  time: number;
  host: string;
}

/** `pid-123-t-1700000000000-h-abcd1234-<nonce>` → its parts; undefined when it is not an owner file. */
export function parseOwner(file: string): Owner | undefined {
  const m = /^pid-(\d+)-t-(\d+)-h-([0-9a-f]{8})-[0-9a-f]+$/.exec(file);
  if (!m) return undefined;
  return { file, pid: Number(m[1]), time: Number(m[2]), host: m[3]! };
}

/** Whether a lock owner may be taken over: its process is gone, or it has held the lock implausibly long. */
export function isStale(owner: Owner, now: number, staleMs: number): boolean {
  if (now - owner.time > staleMs) return true;
  if (owner.host !== hostTag) return false;
  if (owner.pid === process.pid) return false;
  return !pidAlive(owner.pid);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Waits between tries for a held lock: 1, 2, 4, then 8 ms (each jittered up to twice itself). */
export const lockBackoff = { firstMs: 1, maxMs: 8 } as const;

/** A held lock; `release` is idempotent. */
export interface HeldLock {
  readonly path: string;
  /** True while our owner file is still in place (nobody judged us stale). */
  stillHeld(): boolean;
  release(): void;
}

export class FileLock {
  readonly lockDir: string;
  private readonly timeoutMs: number;
  private readonly staleMs: number;

  constructor(
    readonly target: string,
    opts: LockOptions = {},
  ) {
    this.lockDir = `${target}.lock`;
    this.timeoutMs = opts.timeoutMs ?? LOCK_TIMEOUT_MS;
    this.staleMs = opts.staleMs ?? STALE_MS;
  }

  /** Wait (bounded) for the lock; throws registry_busy naming the holder when the wait runs out. */
  async acquire(): Promise<HeldLock> {
    const deadline = Date.now() + this.timeoutMs;
    for (let tries = 0; ; tries++) {
      const held = this.tryAcquire();
      if (held) return held;
      if (Date.now() >= deadline) {
        const owner = this.owner();
        throw new SwitchboardError(
          'registry_busy',
          `the runtime registry is busy: ${basename(this.lockDir)} has been ` +
            `held${owner ? ` by pid ${owner.pid}` : ''} for over ${Math.round(this.timeoutMs / 1000)} s`,
          'try again in a moment',
        );
      }
      // Jittered: 8 waiters must not wake in lockstep.
      await sleep(jittered(backoffMs(tries, lockBackoff.firstMs, lockBackoff.maxMs)));
    }
  }

  /** One attempt: the lock, or undefined when someone live holds it. */
  tryAcquire(): HeldLock | undefined {
    const nonce = randomBytes(6).toString('hex');
    const ownerName = `pid-${process.pid}-t-${Date.now()}-h-${hostTag}-${nonce}`;
    const staging = join(dirname(this.lockDir), `.${basename(this.lockDir)}.tmp-${process.pid}-${nonce}`);
    mkdirSync(staging, { mode: 0o700 });
    try {
      writeFileSync(join(staging, ownerName), '', { mode: 0o600 });
      try {
        renameSync(staging, this.lockDir);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EISDIR') throw err;
        this.breakIfStale();
        return undefined;
      }
    } finally {
      // After a successful rename the staging name is gone; after a failure it is ours to remove.
      rmSync(staging, { recursive: true, force: true });
    }
    const ownerPath = join(this.lockDir, ownerName);
    this.sweepStaging(Date.now());
    let released = false;
    return {
      path: this.lockDir,
      stillHeld: () => {
        try {
          lstatSync(ownerPath);
          return true;
        } catch {
          // no owner file: the lock is not held
          return false;
        }
      },
      release: () => {
        if (released) return;
        released = true;
        try {
          unlinkSync(ownerPath);
        } catch {
          /* taken over meanwhile: nothing of ours is left */
        }
        try {
          rmdirSync(this.lockDir);
        } catch {
          /* another process's lock already sits there, or it is gone */
        }
      },
    };
  }

  /** The current holder, if the lock is held. */
  owner(): Owner | undefined {
    try {
      for (const f of readdirSync(this.lockDir)) {
        const o = parseOwner(f);
        if (o) return o;
      }
    } catch {
      /* not held */
    }
    return undefined;
  }

  private breakIfStale(): void {
    let entries: string[];
    try {
      const st = lstatSync(this.lockDir);
      if (!st.isDirectory()) {
        throw new SwitchboardError(
          'registry_busy',
          `${this.lockDir} is not a directory`,
          'remove it; only Switchboard creates it',
        );
      }
      entries = readdirSync(this.lockDir);
    } catch (err) {
      if (err instanceof SwitchboardError) throw err;
      return; // released between our rename and now: the next attempt will take it
    }
    const now = Date.now();
    for (const f of entries) {
      const o = parseOwner(f);
      // A foreign file in the lock directory would wedge it forever; only owner files are legitimate.
      const stale = o ? isStale(o, now, this.staleMs) : true;
      if (!stale) continue;
      try {
        unlinkSync(join(this.lockDir, f));
      } catch {
        /* another waiter took it over first */
      }
    }
    try {
      rmdirSync(this.lockDir);
    } catch {
      /* not empty: a live holder */
    }
    this.sweepStaging(now);
  }

  /** Staging directories of writers killed between mkdir and rename. */
  private sweepStaging(now: number): void {
    const dir = dirname(this.lockDir);
    const prefix = `.${basename(this.lockDir)}.tmp-`;
    let names: string[];
    try {
      names = readdirSync(dir).filter((n) => n.startsWith(prefix));
    } catch {
      // no folder: nothing stale
      return;
    }
    for (const n of names) {
      const pid = Number(n.slice(prefix.length).split('-')[0]);
      if (pid === process.pid) continue;
      if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) {
        try {
          if (now - lstatSync(join(dir, n)).mtimeMs < this.staleMs) continue;
        } catch {
          // gone meanwhile: nothing to remove
          continue;
        }
      }
      rmSync(join(dir, n), { recursive: true, force: true });
    }
  }
}
