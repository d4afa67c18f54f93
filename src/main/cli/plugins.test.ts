// `switchboard plugins …` end to end: on the profile's files without a Core, through the Core (live) with one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, runCli, runCliAtTerminal, startServe, tempHome } from '../../../scripts/cliHarness.js';
import { writeTestPlugin } from '../core/plugins/testPlugin.js';

const sentences = [
  'Its code runs on this machine with your own powers, in a process of its own.',
  'Its commands run on this machine.',
  'Dangerous commands on its targets ask you first.',
];

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

  it('without a Core and without a terminal: install, enable and disable are refused, nothing changes', async () => {
    for (const args of [
      ['plugins', 'install', source, '--yes'],
      ['plugins', 'enable', 'sandy', '--yes'],
      ['plugins', 'disable', 'sandy'],
    ]) {
      const r = await runCli(home, args);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        new RegExp(
          '^switchboard: plugins (install|enable|' +
            `disable): with no Core running, only a person at a terminal may change which plugins run ` +
            String.raw`\(stdin is not a terminal here\)`,
        ),
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect((await runCli(home, ['plugins', 'list'])).stdout).toContain('no plugins installed');
  });

  it('without a Core, at a terminal: install and enable say what it allows and ask; no is no', async () => {
    expect((await runCli(home, ['plugins', 'list'])).stdout).toContain('no plugins installed');
    const declined = await runCliAtTerminal(home, ['plugins', 'install', source], {}, 'n');
    expect(declined.status).toBe(2);
    expect(declined.stdout).toContain(
      `plugin sandy 2.1.0 — a test plugin\n  ${sentences.join('\n  ')}\nInstall sandy? [y/N] `,
    );
    expect(declined.stdout).toMatch(/install sandy: not confirmed; nothing changed/);
    expect((await runCli(home, ['plugins', 'list'])).stdout).toContain('no plugins installed');
    const inst = await runCliAtTerminal(home, ['plugins', 'install', source], {}, 'y');
    expect(inst).toMatchObject({ status: 0 });
    expect(inst.stdout).toMatch(/plugin sandy: disabled\n$/);
    const listed = JSON.parse((await runCli(home, ['plugins', 'list', '--json'])).stdout) as {
      core: string;
      plugins: Array<{ name: string; version: string; enabled: boolean }>;
    };
    expect(listed).toMatchObject({
      core: 'not running',
      plugins: [{ name: 'sandy', version: '2.1.0', enabled: false }],
    });
    const on = await runCliAtTerminal(home, ['plugins', 'enable', 'sandy'], {}, 'yes');
    expect(on.status).toBe(0);
    expect(on.stdout).toContain('Enable sandy? [y/N] ');
    expect(on.stdout).toMatch(/plugin sandy: enabled \(loads when a Core starts\)\n$/);
    expect(JSON.parse(readFileSync(join(home, 'plugins', 'enabled.json'), 'utf8')).enabled).toEqual(['sandy']);
    expect(JSON.parse((await runCli(home, ['doctor', '--json'])).stdout)).toMatchObject({
      core: 'not running',
      plugins: [{ name: 'sandy', version: '2.1.0', enabled: true }],
    });
    expect(await runCliAtTerminal(home, ['plugins', 'disable', 'sandy'])).toMatchObject({ status: 0 });
    expect(JSON.parse(readFileSync(join(home, 'plugins', 'enabled.json'), 'utf8')).enabled).toEqual([]);
  }, 60_000);

  it('mistakes, at a terminal: one clear line, exit non-zero', async () => {
    const typo = await runCliAtTerminal(home, ['plugins', 'enable', 'sandi']);
    expect(typo.status).not.toBe(0);
    expect(typo.stdout).toMatch(/^switchboard: no plugin named "sandi" — did you mean "sandy"\?.*\n$/);
    const again = await runCliAtTerminal(home, ['plugins', 'install', source, '--yes']);
    expect(again.status).not.toBe(0);
    expect(again.stdout).toMatch(/a plugin named "sandy" is already installed/);
    const nowhere = await runCliAtTerminal(home, ['plugins', 'install', join(elsewhere, 'nope')]);
    expect(nowhere.status).not.toBe(0);
    expect(nowhere.stdout).toMatch(/is not a folder/);
  });

  it('with a Core: enable and disable are live; ' +
    "register validates against the plugin's fields; " +
    'doctor lists it', async () => {
    // Without a Core a plugin's fields are unknown: the registration is kept, and checked when the target is used.
    expect((await runCli(home, ['targets', 'register', 'sb0', '--backend', 'sandy', '--set', 'rot=/tmp'])).status).toBe(
      0,
    );
    const served = await startServe(home);
    try {
      // With a Core the Core decides who may enable; the CLI still says what it allows and wants a yes.
      const unasked = await runCli(home, ['plugins', 'enable', 'sandy']);
      expect(unasked.status).toBe(2);
      expect(unasked.stdout).toContain(sentences.join('\n  '));
      expect(unasked.stderr).toBe(
        'switchboard: enable sandy: not confirmed — run it at a terminal to answer, ' +
          'or add --yes once you have read what it allows\n',
      );
      // A person's act: without a terminal, --yes does not make the Core take it.
      const agent = await runCli(home, ['plugins', 'enable', 'sandy', '--json', '--yes']);
      expect(agent.status).toBe(2);
      expect(agent.stderr).toMatch(
        /only a person may use plugins.enable: the asking process has no controlling terminal/,
      );
      const on = await runCliAtTerminal(home, ['plugins', 'enable', 'sandy', '--yes']);
      expect(on.stdout).toContain(sentences[0]);
      expect(on.stdout).toContain('plugin sandy: active');
      const ok = await runCli(home, [
        'targets',
        'register',
        'sb1',
        '--backend',
        'sandy',
        '--set',
        `root=${home}`,
        '--set',
        'size=small',
      ]);
      expect(ok.status).toBe(0);
      const bad = await runCli(home, ['targets', 'register', 'sb2', '--backend', 'sandy', '--set', `rot=${home}`]);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/"rot".*did you mean "root"/);
      const call = await runCli(home, [
        'call',
        'terminal',
        JSON.stringify({ command: 'echo via-plugin', execution_target: 'sb1' }),
      ]);
      expect(call.stdout).toContain('via-plugin');
      const unfit = await runCli(home, [
        'call',
        'terminal',
        JSON.stringify({ command: 'echo no', execution_target: 'sb0' }),
      ]);
      expect(unfit.status).not.toBe(0);
      expect(unfit.stderr).toMatch(/runtime target "sb0" does not fit backend sandy/);
      const doctor = JSON.parse((await runCli(home, ['doctor', '--json', '--timeout', '10'])).stdout) as {
        plugins: Array<{ name: string; version: string; state: string; checks: unknown[] }>;
      };
      expect(doctor.plugins).toEqual([
        expect.objectContaining({
          name: 'sandy',
          version: '2.1.0',
          state: 'active',
          checks: [expect.objectContaining({ ok: true })],
        }),
      ]);
      // A person's restart gives the plugin a new host; an agent's is refused.
      const restarted = await runCliAtTerminal(home, ['plugins', 'restart', 'sandy']);
      expect(restarted).toMatchObject({ status: 0, stdout: 'plugin sandy: active\n' });
      expect((await runCli(home, ['plugins', 'restart', 'sandy'])).stderr).toMatch(
        /only a person may use plugins.restart/,
      );
      const off = await runCliAtTerminal(home, ['plugins', 'disable', 'sandy']);
      expect(off).toMatchObject({ status: 0, stdout: 'plugin sandy: disabled\n' });
      const list = JSON.parse((await runCliAtTerminal(home, ['plugins', 'list', '--json'])).stdout) as {
        core: string;
        plugins: Array<{ state: string }>;
      };
      expect(list).toMatchObject({ core: 'running', plugins: [{ state: 'disabled' }] });
    } finally {
      await served.stop();
    }
  }, 120_000);
});
