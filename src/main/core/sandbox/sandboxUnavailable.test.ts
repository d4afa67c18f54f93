// Where no sandbox can run (no bwrap, no namespaces, Windows; here forced with SWITCHBOARD_NO_SANDBOX), a local
// target runs unsandboxed and says so: in TargetInfo, in its probe, on every command approval.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { resetSandboxAvailability } from './sandboxAvailability.js';

describe('no sandbox here', () => {
  let t: TestCore;
  const oldHome = process.env.HOME;
  const person = mkdtempSync(join(tmpdir(), 'sb-nosandbox-person-'));
  beforeAll(async () => {
    process.env.HOME = person;
    process.env.SWITCHBOARD_NO_SANDBOX = 'the test says so';
    resetSandboxAvailability();
    t = await makeTestCore(['box'], { extra: 'approvals:\n  mode: ask\n  timeout: 600\n' });
  });
  afterAll(async () => {
    await t?.close();
    delete process.env.SWITCHBOARD_NO_SANDBOX;
    resetSandboxAvailability();
    process.env.HOME = oldHome;
    rmSync(person, { recursive: true, force: true });
  });

  it('the target runs unsandboxed, and TargetInfo, the probe and approvals say why', async () => {
    expect(t.core.listTargets()[0]?.sandbox).toEqual({
      state: 'unsandboxed',
      reason: 'SWITCHBOARD_NO_SANDBOX is set (the test says so)',
    });
    const r = await t.core.callTool('terminal', { command: `cat ${join(t.home, 'config.yaml')}` }, 'test');
    expect(String(r.output)).toContain('terminal:');
    const report = (await t.core.invoke('doctor.run', { timeout_ms: 10_000 })) as {
      targets: Array<{ detail?: string }>;
    };
    expect(report.targets[0]?.detail).toContain('unsandboxed (SWITCHBOARD_NO_SANDBOX is set (the test says so))');
    const held = t.core.callTool('terminal', { command: 'sudo true' }, 'mcp');
    let pending = t.core.approvals.list()[0];
    while (!pending) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      pending = t.core.approvals.list()[0];
    }
    expect(pending).toMatchObject({ unsandboxed: true });
    t.core.approvals.decide({ id: pending.id, decision: 'deny' }, 'ui');
    await expect(held).rejects.toMatchObject({ code: 'approval_denied' });
  });
});
