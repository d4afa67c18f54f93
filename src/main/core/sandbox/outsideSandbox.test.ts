// Leaving the sandbox: a terminal call with outside_sandbox runs unsandboxed only after a person approves it, once,
// in every approvals mode but deny; and a command approval on an unsandboxed target says so.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../../shared/approvals.js';
import type { Core } from '../core.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { sandboxAvailability } from './sandboxAvailability.js';

const available = sandboxAvailability();
if (!available.ok) console.warn(`outside_sandbox tests skipped: ${available.reason}`);
const live = available.ok ? describe : describe.skip;

/** The pending approval, once the broker holds one. */
async function nextPending(c: Core): Promise<PendingApproval> {
  for (let p = c.approvals.list()[0]; ; p = c.approvals.list()[0]) {
    if (p) return p;
    await new Promise((r) => setTimeout(r, 20));
  }
}

live('outside_sandbox', () => {
  let t: TestCore | undefined;
  const oldHome = process.env.HOME;
  let person = '';
  beforeAll(() => {
    person = realpathSync(mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'sb-outside-person-')));
    process.env.HOME = person;
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });
  afterAll(() => {
    process.env.HOME = oldHome;
    rmSync(person, { recursive: true, force: true });
  });
  const core = async (mode: 'ask' | 'deny' | 'off'): Promise<TestCore> => {
    t = await makeTestCore(['box', 'open'], {
      specs: { open: `{ backend: local, cwd: ${person}, sandbox: off }` },
      extra: `approvals:\n  mode: ${mode}\n  timeout: 600\n`,
    });
    return t;
  };

  for (const mode of ['off', 'ask'] as const) {
    it(`asks a person even in mode ${mode}; an "always" answer counts once and keeps no rule`, async () => {
      const c = await core(mode);
      const command = `cat ${join(c.home, 'config.yaml')}`;
      const inside = await c.core.callTool('terminal', { command }, 'mcp');
      expect(inside.exit_code).not.toBe(0);
      expect(String(inside.output)).toMatch(/\[sandbox: .* is hidden .*outside_sandbox: true\]/);

      const call = c.core.callTool('terminal', { command, outside_sandbox: true }, 'mcp');
      const p = await nextPending(c.core);
      expect(p).toMatchObject({
        kind: 'command',
        tool: 'terminal',
        command,
        outside_sandbox: true,
        execution_target: 'box',
      });
      expect(p.reasons![0]).toBe('runs outside the sandbox');
      expect(p.unsandboxed).toBeUndefined();
      c.core.approvals.decide({ id: p.id, decision: 'approve', scope: 'always' }, 'ui');
      const r = await call;
      expect(r).toMatchObject({ exit_code: 0 });
      expect(String(r.output)).toContain('terminal:');
      expect(c.core.activity.list(1)[0]).toMatchObject({ approval: { decision: 'approve', scope: 'once' } });
      expect(c.core.approvalRules.list()).toEqual([]);

      // The same call asks again.
      const again = c.core.callTool('terminal', { command, outside_sandbox: true }, 'mcp');
      const p2 = await nextPending(c.core);
      c.core.approvals.decide({ id: p2.id, decision: 'approve', scope: 'session' }, 'ui');
      expect(await again).toMatchObject({ exit_code: 0 });
      expect(c.core.approvalRules.list()).toEqual([]);
      const third = c.core.callTool('terminal', { command, outside_sandbox: true }, 'mcp');
      const p3 = await nextPending(c.core);
      c.core.approvals.decide({ id: p3.id, decision: 'deny' }, 'ui');
      await expect(third).rejects.toMatchObject({ code: 'approval_denied' });
    }, 30_000);
  }

  it('mode deny refuses it without asking', async () => {
    const c = await core('deny');
    await expect(c.core.callTool('terminal', { command: 'true', outside_sandbox: true }, 'mcp')).rejects.toMatchObject({
      code: 'approval_denied',
      message: expect.stringMatching(/runs outside the sandbox.*approvals\.mode is deny/),
    });
    expect(c.core.approvals.list()).toEqual([]);
  });

  it('is for foreground commands only', async () => {
    const c = await core('off');
    const call = c.core.callTool('terminal', { command: 'true', outside_sandbox: true, background: true }, 'mcp');
    c.core.approvals.decide({ id: (await nextPending(c.core)).id, decision: 'approve', scope: 'once' }, 'ui');
    await expect(call).rejects.toMatchObject({ code: 'bad_request', message: expect.stringMatching(/foreground/) });
  });

  it('a command approval on an unsandboxed target says so; on a sandboxed one it does not', async () => {
    const c = await core('ask');
    writeFileSync(join(person, 'one'), 'x');
    const open = c.core.callTool('terminal', { command: 'rm -rf ./one', execution_target: 'open' }, 'mcp');
    const p = await nextPending(c.core);
    expect(p).toMatchObject({ execution_target: 'open', unsandboxed: true });
    expect(p.outside_sandbox).toBeUndefined();
    c.core.approvals.decide({ id: p.id, decision: 'deny' }, 'ui');
    await expect(open).rejects.toMatchObject({ code: 'approval_denied' });
    const boxed = c.core.callTool('terminal', { command: 'rm -rf ./two', execution_target: 'box' }, 'mcp');
    const q = await nextPending(c.core);
    expect(q.unsandboxed).toBeUndefined();
    c.core.approvals.decide({ id: q.id, decision: 'deny' }, 'ui');
    await expect(boxed).rejects.toMatchObject({ code: 'approval_denied' });
  });
});
