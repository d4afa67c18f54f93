import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTestCore, type TestCore } from './testCore.js';

const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;

describe.skipIf(!hasPython)('execute_code stops its nested calls (local)', () => {
  let t: TestCore;
  beforeAll(async () => {
    t = await makeTestCore(['a']);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a timeout returns and the nested command does not run to its end', async () => {
    const marker = join(t.dirs.a!, 'nested-done');
    const started = Date.now();
    const r = await t.core.callTool(
      'execute_code',
      {
        code: `import switchboard_tools as sb\nsb.terminal("sleep 10; touch ${marker}", timeout=20)\nprint("after")`,
        timeout: 4,
      },
      'test',
    );
    expect(r).toMatchObject({
      timed_out: true,
      exit_code: 124,
      tool_calls: 1,
      error: expect.stringMatching(/longer than 4 s/),
    });
    expect(String(r.output)).not.toContain('after');
    // Had the nested command lived on, it would have touched the file 10 s after the start.
    await sleep(Math.max(0, 12_000 - (Date.now() - started)));
    expect(existsSync(marker)).toBe(false);
  }, 30_000);
});
