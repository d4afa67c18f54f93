// Issue 36, item 7, through a Core: on an unsandboxed local target a write to a path the command builds as it runs
// asks (here nobody answers, so it does not run); on a sandboxed one the sandbox holds it and it runs unasked.
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { ASK_NOBODY } from './testRunAttacks.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'sb-unsandboxed-write-')));
let t: TestCore;
beforeAll(async () => {
  for (const d of ['open', 'boxed']) {
    mkdirSync(join(work, d));
    writeFileSync(join(work, d, 'where.txt'), join(work, d));
  }
  t = await makeTestCore(['open', 'boxed'], {
    specs: {
      open: `{ backend: local, cwd: ${join(work, 'open')}, sandbox: off }`,
      boxed: `{ backend: local, cwd: ${join(work, 'boxed')} }`,
    },
    extra: ASK_NOBODY,
  });
  for (const d of ['open', 'boxed'])
    await t.core.callTool('terminal', { command: 'true', execution_target: d }, 'test');
}, 60_000);
afterAll(async () => {
  await t?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('a write to a path built as it runs', () => {
  it.each([
    ['open', false],
    ['boxed', true],
  ] as const)('on %s: runs %s', async (target, runs) => {
    const command = 'D=$(cat where.txt); echo x >> "$D/canary.txt"';
    const r = await t.core.callTool('terminal', { command, execution_target: target }, 'test').then(
      (result) => JSON.stringify(result),
      (err: unknown) => String(err),
    );
    expect(existsSync(join(work, target, 'canary.txt')), r).toBe(runs);
    if (!runs) expect(r).toMatch(/writes to \$D\/canary\.txt, a path known only as it runs, on an unsandboxed target/);
  });
});
