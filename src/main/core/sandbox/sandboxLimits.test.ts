// A sandbox's limits on this machine: the cgroup a run joins (or the process limit it starts under), and what is said
// of them; the cgroup goes once nothing is left in it.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyLimits } from './sandboxLimits.js';

describe.skipIf(process.platform !== 'linux')('applyLimits', () => {
  it('a run started through its prefix is held to the limit; the limit is said; the cgroup goes after', () => {
    const limits = applyLimits(`test${process.pid}`, { max_processes: 32, max_memory_mb: 256 });
    const [file, ...args] = [...limits.prefix, 'bash', '-c', 'cat /proc/self/cgroup; ulimit -u'];
    const run = spawnSync(file!, args, { encoding: 'utf8' });
    expect(run.status).toBe(0);
    if (/cgroup/.test(limits.describe)) {
      expect(limits.describe).toMatch(/processes ≤ 32/);
      expect(run.stdout).toContain(`switchboard-${process.pid}-test${process.pid}`);
      const dir = run.stdout
        .split('\n')
        .map((l) => /^\d+:(pids|):(.*)$/.exec(l))
        .find(Boolean);
      const root = dir?.[1] === 'pids' ? '/sys/fs/cgroup/pids' : '/sys/fs/cgroup';
      const path = `${root}${dir?.[2] ?? ''}`;
      expect(readFileSync(`${path}/pids.max`, 'utf8').trim()).toBe('32');
      limits.release();
      expect(existsSync(path)).toBe(false);
    } else if (process.getuid?.() !== 0) {
      expect(limits.describe).toMatch(/processes ≤ 32 more than this user runs \(RLIMIT_NPROC\)/);
      expect(Number(run.stdout.trim().split('\n').pop())).toBeGreaterThan(32);
      expect(limits.describe).toMatch(/memory not limited/);
    } else {
      // Root with no cgroup it may make: said, never assumed.
      expect(limits.describe).toMatch(/not limited/);
    }
  });
});
