// Where an Environment found its work runs (ProviderContext.reportSandbox): kept by Sessions, preferred over the
// declaration's sandboxFor, and carried to TargetInfo, the window's targets.changed and doctor's warnings.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DoctorReport } from '../../../shared/api.js';
import type { SandboxInfo, TargetInfo } from '../../../shared/targets.js';
import type { ProviderContext } from '../backends/index.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { Sessions, type SessionChange } from './sessions.js';

const exposed: SandboxInfo = {
  state: 'unsandboxed',
  reason: 'the host lets anyone in',
  hint: 'lock the host',
};

describe('Sessions.reportSandbox', () => {
  const root = mkdtempSync(join(tmpdir(), 'sb-reported-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const ctx: ProviderContext = { home: root, resolveSpec: () => undefined };

  it('keeps the latest report, tells each change once (a sandbox change), forgets it with the identity', async () => {
    const sessions = new Sessions(() => undefined, ctx);
    const seen: Array<[string, SessionChange]> = [];
    sessions.onChange((identity, what) => seen.push([identity, what]));
    expect(sessions.sandbox('a#1')).toBeUndefined();
    sessions.reportSandbox('a#1', exposed);
    sessions.reportSandbox('a#1', { ...exposed });
    expect(sessions.sandbox('a#1')).toEqual(exposed);
    sessions.reportSandbox('a#1', { state: 'sandboxed', kind: 'container' });
    expect(sessions.sandbox('a#1')).toEqual({ state: 'sandboxed', kind: 'container' });
    expect(seen).toEqual([
      ['a#1', 'sandbox'],
      ['a#1', 'sandbox'],
    ]);
    await sessions.release('a#1', 'idle');
    expect(sessions.sandbox('a#1')).toBeDefined();
    await sessions.release('a#1', 'removed');
    expect(sessions.sandbox('a#1')).toBeUndefined();
  });
});

describe('a reported sandbox through a real Core', () => {
  let t: TestCore;
  beforeAll(async () => {
    t = await makeTestCore(['here', 'other']);
  });
  afterAll(async () => t?.close());

  const row = (name: string): TargetInfo => {
    const found = t.core.listTargets().find((x) => x.name === name);
    if (!found) throw new Error(`no target ${name}`);
    return found;
  };

  it("outranks the declaration's, reaches targets.changed, TargetInfo and doctor's warnings", async () => {
    const declared = row('here').sandbox;
    expect(declared).toBeDefined();
    const told: TargetInfo[][] = [];
    const off = t.core.onEvent((event, payload) => {
      if (event === 'targets.changed') told.push(payload as TargetInfo[]);
    });
    const identity = `here#${row('here').generation}`;
    t.core.providerContext.reportSandbox?.(identity, exposed);
    expect(row('here').sandbox).toEqual(exposed);
    await vi.waitFor(() => expect(told.at(-1)?.find((x) => x.name === 'here')?.sandbox).toEqual(exposed));
    off();
    // The other target keeps what its spec says.
    expect(row('other').sandbox).toEqual(declared);

    const report = (await t.core.invoke('doctor.run', { timeout_ms: 20_000 })) as DoctorReport;
    expect(report.targets.find((x) => x.name === 'here')?.sandbox).toEqual(exposed);
    expect(report.warnings).toEqual([
      'target "here" runs agent work unsandboxed: the host lets anyone in — lock the host',
    ]);
  });
});
