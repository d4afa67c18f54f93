// A plugin whose host keeps crashing, in the window: after its third crash in five minutes the Plugins dialog shows it
// failed, with the reason, and a Restart button that brings it back.
import { describe, expect, it } from 'vitest';
import { misbehave, writeTestPlugin } from '../src/main/core/plugins/testPlugin.js';
import { openUi, useServeAndBrowser } from './harness.js';

const app = useServeAndBrowser();
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

/** A tool call on the plugin's target, through the CLI as an agent would make it: its exit status. */
async function onTarget(command: string): Promise<number> {
  return (await app.served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: 'c' })])).code;
}
async function state(): Promise<string> {
  const r = await app.served.personCli(['plugins', 'list', '--json']);
  const list = (JSON.parse(r.stdout) as { plugins: Array<{ name: string; state: string }> }).plugins;
  return list.find((p) => p.name === 'crashy')?.state ?? 'absent';
}

describe('a plugin that keeps crashing, in the window', () => {
  it('is failed after three crashes, says why, and comes back with Restart', async () => {
    writeTestPlugin(app.served.home, { name: 'crashy' });
    expect((await app.served.personCli(['plugins', 'enable', 'crashy', '--yes'])).code).toBe(0);
    expect((await app.served.cli(['targets', 'register', 'c', '--backend', 'crashy', '--cwd', '/tmp'])).code).toBe(0);
    for (let crash = 1; crash <= 3; crash++) {
      await poll(() => onTarget('true')).toBe(0);
      expect(await onTarget(`echo ${misbehave.exit}`)).not.toBe(0);
    }
    await poll(state).toBe('failed');

    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.keyboard.press('Control+Shift+P');
    const palette = page.getByRole('dialog', { name: 'Commands' });
    await palette.getByRole('combobox', { name: 'Type a command' }).fill('plugins');
    await poll(() => palette.getByRole('option').first().textContent()).toBe('Plugins…');
    await page.keyboard.press('Enter');
    const row = page
      .getByRole('dialog', { name: 'Plugins' })
      .getByRole('table', { name: 'Installed plugins' })
      .getByRole('row', { name: 'crashy' });
    await poll(() => row.textContent().catch(() => '')).toMatch(
      /crashy.*went down 3 times in 5 minutes and is not restarted.*switchboard plugins restart crashy.*failed/,
    );

    await row.getByRole('button', { name: 'Restart crashy' }).click();
    await poll(() => row.textContent().catch(() => '')).toMatch(/crashy.*active/);
    expect(await row.getByRole('button', { name: 'Restart crashy' }).count()).toBe(0);
    expect(await onTarget('true')).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});
