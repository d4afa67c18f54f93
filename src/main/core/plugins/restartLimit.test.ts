// A plugin whose host crashes again and again: restarted twice, failed at the third crash within the window (with the
// reason, in the list and on its targets), never restarted by itself, and back when a person restarts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginInfo } from '../../../shared/plugins.js';
import { Core } from '../core.js';
import { asPerson } from '../platform/index.js';
import { restartLimit } from './pluginHost.js';
import { misbehave, writeTestPlugin } from './testPlugin.js';

const root = mkdtempSync(join(tmpdir(), 'sb-plugin-restarts-'));
const home = join(root, 'home');
const work = join(root, 'work');
let core: Core;

async function until(cond: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
const term = (command: string) => core.callTool('terminal', { command, execution_target: 'c' }, 'test');
const info = async (): Promise<PluginInfo> =>
  ((await core.invoke('plugins.list', {}, asPerson)) as PluginInfo[]).find((p) => p.name === 'crashy')!;
const hostPid = (): number | undefined => core.plugins.hostOf('crashy')?.pid;
/** Crash the host with a command and wait until it is back (or, after the last crash, failed). */
async function crash(): Promise<string> {
  const before = hostPid();
  const err = await term(`echo ${misbehave.exit}`).then(
    () => 'answered',
    (e: Error) => e.message,
  );
  await until(async () => (hostPid() !== undefined && hostPid() !== before) || (await info()).state === 'failed');
  return err;
}

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  writeTestPlugin(home, { name: 'crashy' });
  writeFileSync(join(home, 'plugins', 'enabled.json'), JSON.stringify({ enabled: ['crashy'] }));
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    c: { backend: crashy, cwd: ${work} }\n`);
  core = await new Core({ home }).start();
}, 60_000);

afterAll(async () => {
  await core?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('a plugin host that keeps crashing', () => {
  it('is restarted until its third crash in the window, ' +
    'then failed with the reason until a person restarts it', async () => {
    expect(restartLimit).toEqual({ crashes: 3, windowMs: 5 * 60_000 });
    expect((await term('echo up')).output).toBe('up\n');

    // Crashes one and two: the host comes back each time and serves commands.
    for (let i = 1; i < restartLimit.crashes; i++) {
      expect(await crash()).toMatch(/plugin crashy: its host exited with code 7/);
      expect((await info()).state).toBe('active');
      await until(
        async () =>
          (await term('echo back').then(
            (r) => r.output,
            () => '',
          )) === 'back\n',
      );
    }

    // Crash three: failed, with the reason, and no host starts again by itself.
    const third = await crash();
    expect(third).toMatch(/its host exited with code 7/);
    expect(third).toMatch(/went down 3 times in 5 minutes and is not restarted/);
    const failed = await info();
    expect(failed).toMatchObject({ state: 'failed', enabled: true, backends: ['crashy'] });
    expect(failed.problem).toMatch(/its host exited with code 7; it went down 3 times in 5 minutes/);
    expect(failed.problem).toMatch(/switchboard plugins restart crashy/);
    await new Promise((r) => setTimeout(r, 3000)); // past the back-off a fourth start would have waited
    expect(hostPid()).toBeUndefined();
    expect((await info()).state).toBe('failed');

    // A fourth try fails at once, saying why, without starting anything.
    await expect(term(`echo ${misbehave.exit}`)).rejects.toThrow(/plugin crashy is failed: .*went down 3 times/);
    expect(core.listTargets().find((t) => t.name === 'c')?.state).toBe('unreachable');
    expect(hostPid()).toBeUndefined();

    // Only a person may restart it; then it runs again, with a crash count from zero.
    await expect(core.invoke('plugins.restart', { name: 'crashy' })).rejects.toThrow(/only a person/);
    const restarted = (await core.invoke('plugins.restart', { name: 'crashy' }, asPerson)) as PluginInfo;
    expect(restarted).toMatchObject({ state: 'active' });
    expect(restarted.problem).toBeUndefined();
    expect((await term('echo again')).output).toBe('again\n');
    expect(await crash()).toMatch(/its host exited with code 7 during exec; it is being restarted/);
    expect((await info()).state).toBe('active');

    // The plugin's author finds the story in plugins/.host.log, and the Core's log has it too.
    expect(readFileSync(join(home, 'plugins', '.host.log'), 'utf8')).toMatch(/crashy: .*is not restarted/);
    expect(readFileSync(join(home, 'switchboard.log'), 'utf8')).toMatch(/warn {2}plugins: crashy: .*is not restarted/);
  }, 120_000);

  it('restart refuses a plugin that is not enabled, in one line', async () => {
    await core.invoke('plugins.disable', { name: 'crashy' }, asPerson);
    await expect(core.invoke('plugins.restart', { name: 'crashy' }, asPerson)).rejects.toThrow(
      /plugin crashy is not enabled; there is nothing to restart/,
    );
  });
});
