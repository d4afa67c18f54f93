// A process that runs is alive; one that is gone, or has exited and waits as a zombie for a parent that never reaps
// it (a container's first process may never), is not: a zombie holds no lock and serves nothing.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { until } from '../../../../scripts/sleepProbe.js';
import { isZombie, pidAlive } from './processAlive.js';

describe('pidAlive', () => {
  it('is true for this process and false for one that is gone', () => {
    expect(pidAlive(process.pid)).toBe(true);
    const gone = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout);
    expect(pidAlive(gone)).toBe(false);
  });

  it('is false for a zombie, true for its parent', async () => {
    // A parent that forks a child which exits at once, and never waits for it.
    const parent = spawn(
      'python3',
      ['-c', 'import os, time\npid = os.fork()\nif pid == 0: os._exit(0)\nprint(pid, flush=True)\ntime.sleep(60)\n'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const child = Number(await new Promise<string>((r) => parent.stdout.setEncoding('utf8').once('data', r)));
      await until(() => isZombie(child), 'the child is a zombie');
      expect(pidAlive(child)).toBe(false);
      expect(pidAlive(parent.pid!)).toBe(true);
      expect(isZombie(parent.pid!)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
