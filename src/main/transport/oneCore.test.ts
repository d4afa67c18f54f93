// One Core per profile: a second `serve` refuses in one line and leaves the first one's core.json alone; a Core
// that was killed does not keep its profile locked.
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

describe('one Core per profile', () => {
  const home = tempHome('sb-one-core-');
  const running: Served[] = [];
  afterAll(async () => {
    await Promise.all(running.map((s) => s.stop()));
    rmSync(home, { recursive: true, force: true });
  });

  it('a second serve on the same profile is refused and the first keeps serving', async () => {
    ensureBuilt();
    const first = await startServe(home);
    running.push(first);
    const coreFile = readFileSync(join(home, 'core.json'), 'utf8');

    const second = await runCli(home, ['serve', '--port', '0']);
    expect(second.status).not.toBe(0);
    const lines = second.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      `a Switchboard Core already runs for the profile ${home} (pid ${first.child.pid}, serve, ${first.url}`,
    );
    // The first Core's file is untouched, and the CLI still reaches it.
    expect(readFileSync(join(home, 'core.json'), 'utf8')).toBe(coreFile);
    const listed = await runCli(home, ['targets', 'list', '--json']);
    expect(listed.status).toBe(0);
    expect(listed.stderr).toBe('');

    // Killed without a chance to clean up: the next Core takes the profile over.
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    running.splice(running.indexOf(first), 1);
    const third = await startServe(home);
    running.push(third);
    expect(JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')).pid).toBe(third.child.pid);
  });
});
