// `switchboard plugins …` end to end: on the profile's files without a Core, through the Core (live) with one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, runCli, startServe, tempHome } from '../../../scripts/cliHarness.js';
import { writeTestPlugin } from '../core/plugins/testPlugin.js';

describe('switchboard plugins', () => {
  const home = tempHome('sb-cli-plugins-');
  const elsewhere = mkdtempSync(join(tmpdir(), 'sb-plugin-src-'));
  let source: string;

  beforeAll(() => {
    ensureBuilt();
    source = writeTestPlugin(elsewhere, { name: 'sandy', version: '2.1.0' });
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('without a Core: install, list, enable, disable edit the profile', async () => {
    expect((await runCli(home, ['plugins', 'list'])).stdout).toContain('no plugins installed');
    const inst = await runCli(home, ['plugins', 'install', source]);
    expect(inst).toMatchObject({ status: 0, stdout: 'plugin sandy: disabled\n' });
    const listed = JSON.parse((await runCli(home, ['plugins', 'list', '--json'])).stdout) as { core: string; plugins: Array<{ name: string; version: string; enabled: boolean }> };
    expect(listed).toMatchObject({ core: 'not running', plugins: [{ name: 'sandy', version: '2.1.0', enabled: false }] });
    expect(await runCli(home, ['plugins', 'enable', 'sandy'])).toMatchObject({ status: 0, stdout: 'plugin sandy: enabled (loads when a Core starts)\n' });
    expect(JSON.parse(readFileSync(join(home, 'plugins', 'enabled.json'), 'utf8')).enabled).toEqual(['sandy']);
    expect(JSON.parse((await runCli(home, ['doctor', '--json'])).stdout)).toMatchObject({ core: 'not running', plugins: [{ name: 'sandy', version: '2.1.0', enabled: true }] });
    expect(await runCli(home, ['plugins', 'disable', 'sandy'])).toMatchObject({ status: 0 });
    expect(JSON.parse(readFileSync(join(home, 'plugins', 'enabled.json'), 'utf8')).enabled).toEqual([]);
  });

  it('mistakes: one clear line, exit non-zero', async () => {
    const typo = await runCli(home, ['plugins', 'enable', 'sandi']);
    expect(typo.status).not.toBe(0);
    expect(typo.stderr.trim().split('\n')).toHaveLength(1);
    expect(typo.stderr).toMatch(/no plugin named "sandi" — did you mean "sandy"\?/);
    const again = await runCli(home, ['plugins', 'install', source]);
    expect(again.status).not.toBe(0);
    expect(again.stderr).toMatch(/a plugin named "sandy" is already installed/);
    const nowhere = await runCli(home, ['plugins', 'install', join(elsewhere, 'nope')]);
    expect(nowhere.status).not.toBe(0);
    expect(nowhere.stderr).toMatch(/is not a folder/);
  });

  it('with a Core: enable and disable are live; register validates against the plugin\'s fields; doctor lists it', async () => {
    // Without a Core a plugin's fields are unknown: the registration is kept, and checked when the target is used.
    expect((await runCli(home, ['targets', 'register', 'sb0', '--backend', 'sandy', '--set', 'rot=/tmp'])).status).toBe(0);
    const served = await startServe(home);
    try {
      const on = await runCli(home, ['plugins', 'enable', 'sandy', '--json']);
      expect(JSON.parse(on.stdout)).toMatchObject({ core: 'running', plugin: { name: 'sandy', state: 'active', backends: ['sandy'] } });
      const ok = await runCli(home, ['targets', 'register', 'sb1', '--backend', 'sandy', '--set', `root=${home}`, '--set', 'size=small']);
      expect(ok.status).toBe(0);
      const bad = await runCli(home, ['targets', 'register', 'sb2', '--backend', 'sandy', '--set', `rot=${home}`]);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/"rot".*did you mean "root"/);
      const call = await runCli(home, ['call', 'terminal', JSON.stringify({ command: 'echo via-plugin', execution_target: 'sb1' })]);
      expect(call.stdout).toContain('via-plugin');
      const unfit = await runCli(home, ['call', 'terminal', JSON.stringify({ command: 'echo no', execution_target: 'sb0' })]);
      expect(unfit.status).not.toBe(0);
      expect(unfit.stderr).toMatch(/runtime target "sb0" does not fit backend sandy/);
      const doctor = JSON.parse((await runCli(home, ['doctor', '--json', '--timeout', '10'])).stdout) as { plugins: Array<{ name: string; version: string; state: string; checks: unknown[] }> };
      expect(doctor.plugins).toEqual([expect.objectContaining({ name: 'sandy', version: '2.1.0', state: 'active', checks: [expect.objectContaining({ ok: true })] })]);
      const off = await runCli(home, ['plugins', 'disable', 'sandy']);
      expect(off).toMatchObject({ status: 0, stdout: 'plugin sandy: disabled\n' });
      const list = JSON.parse((await runCli(home, ['plugins', 'list', '--json'])).stdout) as { core: string; plugins: Array<{ state: string }> };
      expect(list).toMatchObject({ core: 'running', plugins: [{ state: 'disabled' }] });
    } finally {
      await served.stop();
    }
  }, 120_000);
});
