// Through the real tool path: execute_code on a local target whose Python hides a tree delete behind an alias
// is held for a person (approvals mode ask), and the directory is still there when the person denies it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PendingApproval } from '../../../../../shared/approvals.js';
import { makeTestCore, type TestCore } from '../../../tools/testCore.js';

const hasPython = spawnSync('python3', ['-c', 'pass']).status === 0;

describe.skipIf(!hasPython)('execute_code judged on its syntax tree (local target, mode ask)', () => {
  let t: TestCore;
  beforeAll(async () => {
    t = await makeTestCore(['a'], { extra: 'approvals:\n  mode: ask\n  timeout: 600\n' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('`import shutil as s; s.rmtree(dir)` waits for a person; denied, the directory survives', async () => {
    const dir = join(t.dirs.a!, 'keep');
    mkdirSync(dir);
    writeFileSync(join(dir, 'file.txt'), 'data');
    const pending = new Promise<PendingApproval>((resolve) => {
      const off = t.core.approvals.onChange((list) => {
        if (list[0]) {
          off();
          resolve(list[0]);
        }
      });
    });
    const call = t.core.callTool(
      'execute_code',
      { code: `import shutil as s; s.rmtree(${JSON.stringify(dir)})` },
      'test',
    );
    const outcome = call.then(
      () => 'ran',
      (err: Error) => err.message,
    );
    // Had the code run unasked, the call ends first.
    const p = await Promise.race([
      pending,
      outcome.then((o) => Promise.reject(new Error(`execute_code ended without asking: ${o}`))),
    ]);
    expect((p.reasons ?? []).join(' | ')).toContain(`deletes a directory tree ${dir} (shutil.rmtree)`);
    t.core.approvals.decide({ id: p.id, decision: 'deny' }, 'ui');
    expect(await outcome).toMatch(/denied/);
    expect(existsSync(join(dir, 'file.txt'))).toBe(true);
  }, 30_000);

  it('everyday code in the workspace runs without asking', async () => {
    const r = await t.core.callTool(
      'execute_code',
      {
        code:
          "import json, os\nos.makedirs('out', exist_ok=True)\nopen('out/x.json', 'w').write(json.dumps({'a': " +
          "1}))\nprint(open('out/x.json').read())",
      },
      'test',
    );
    expect(String(r.output)).toContain('{"a": 1}');
    expect(t.core.approvals.list()).toEqual([]);
  }, 30_000);
});
