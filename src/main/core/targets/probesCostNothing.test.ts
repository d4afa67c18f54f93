// The health checks never create an environment to look at a target: through a real Core and real plugin hosts,
// with plugins that count every create_environment, exec and probe they are asked for.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';
import { writeTestPlugin } from '../plugins/testPlugin.js';
import type { TargetInfo } from '../../../shared/targets.js';

const root = mkdtempSync(join(tmpdir(), 'sb-probe-cost-'));
const home = join(root, 'home');
const work = join(root, 'work');
const silentCalls = join(root, 'silent.calls');
const lookerCalls = join(root, 'looker.calls');
let core: Core;

/** How many times each call was made on a plugin. */
function calls(file: string): Record<string, number> {
  const out: Record<string, number> = {};
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) out[line] = (out[line] ?? 0) + 1;
  return out;
}
/** The target's row as the window gets it (an empty one when it is missing, which fails every match below). */
const row = (name: string): Partial<TargetInfo> => core.listTargets().find((x) => x.name === name) ?? {};

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeTestPlugin(home, { name: 'silent', countTo: silentCalls });
  writeTestPlugin(home, { name: 'looker', countTo: lookerCalls, probe: true });
  writeFileSync(join(home, 'plugins', 'enabled.json'), JSON.stringify({ enabled: ['silent', 'looker'] }));
  const targets = [0, 1, 2].flatMap((i) => [
    `    s${i}: { backend: silent, cwd: ${work} }`,
    `    l${i}: { backend: looker, cwd: ${work}, root: ${i === 2 ? '/nonexistent' : work} }`,
  ]);
  writeFileSync(join(home, 'config.yaml'), ['terminal:', '  targets:', ...targets, ''].join('\n'));
  // Looks every 150 ms: over the test's seconds each target would be probed many times over, were it probed.
  core = await new Core({
    home,
    healthTiming: { reachableMs: 150, retryMinMs: 100, retryMaxMs: 200 },
  }).start();
}, 60_000);
afterAll(async () => {
  await core?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('probes that cost nothing', () => {
  it('a plugin without probe is never asked to create an environment: its targets are "not checked yet"', async () => {
    await vi.waitFor(() => expect(row('s0').health?.status).toBe('unchecked'), { timeout: 20_000 });
    // Many intervals later, still nothing was created or run there.
    await new Promise((r) => setTimeout(r, 1500));
    expect(calls(silentCalls)).toEqual({});
    for (const name of ['s0', 's1', 's2'])
      expect(row(name)).toMatchObject({ state: 'active', health: { status: 'unchecked' } });
  });

  it('a plugin that declares probe is looked at with it, and only with it', async () => {
    await vi.waitFor(() => expect(row('l0').health?.status).toBe('reachable'), { timeout: 20_000 });
    await vi.waitFor(() => expect(row('l2').health?.status).toBe('unreachable'), { timeout: 20_000 });
    expect(row('l0').health?.detail).toBe('looked');
    expect(row('l2').problem).toBe('no such root');
    const seen = calls(lookerCalls);
    expect(seen.probe).toBeGreaterThanOrEqual(3);
    expect(seen.create).toBeUndefined();
    expect(seen.exec).toBeUndefined();
  });

  it('a doctor run looks the same way: the plugin without probe is "not checked yet", nothing is created', async () => {
    const report = (await core.invoke('doctor.run', { timeout_ms: 5000 })) as {
      targets: Array<{ name: string; ok: boolean; detail?: string; problem?: string }>;
    };
    const of = (name: string) => report.targets.find((x) => x.name === name);
    expect(of('s2')).toMatchObject({ ok: true, detail: expect.stringMatching(/^not checked yet: /) });
    expect(of('l1')).toMatchObject({ ok: true, detail: 'looked' });
    expect(of('l2')).toMatchObject({ ok: false, problem: 'no such root' });
    expect(calls(silentCalls)).toEqual({});
    expect(calls(lookerCalls).create).toBeUndefined();
  });

  it('a call is what tells: the environment it needs is created once, and the row shows what it met', async () => {
    const r = await core.callTool('terminal', { command: 'echo hi', execution_target: 's1' }, 'test');
    expect(r).toMatchObject({ exit_code: 0 });
    expect(row('s1').health?.status).toBe('reachable');
    await new Promise((res) => setTimeout(res, 1000));
    // The call's own create; no look added another, nor an exec.
    expect(calls(silentCalls).create).toBe(1);
    expect(row('s0').health?.status).toBe('unchecked');
  });
});
