// A Core stopped and started again under an open window (issue 39, items 4, 7, 11 and 13): the banner names the
// command a person started it with; Activity still shows the calls made before; an SSH pane comes back in its
// directory with no internal command printed on its screen; a Core started while the last one is still stopping
// waits for it instead of refusing.
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadSshEnv } from '../scripts/testEnv.js';
import {
  addTargets,
  marker,
  openUi,
  pane,
  root,
  run,
  sshTargetLine,
  terminalText,
  useServeAndBrowser,
  waitForText,
  windowSizes,
} from './harness.js';

vi.setConfig({ testTimeout: 300_000 });
const poll = <T>(fn: () => T | Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });

const ssh = loadSshEnv();
const app = useServeAndBrowser((served) => {
  if (ssh) addTargets(served, [sshTargetLine('remote', ssh, 'cwd: /tmp')], [ssh.knownHostsLine]);
});

describe('a Core started again under an open window', () => {
  it('the banner of a stopped Core names the command a person started it with', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
    const banner = page.getByRole('alert').filter({ hasText: 'Lost the connection to the Core' });
    let said = '';
    await app.served.restart(async () => {
      await banner.waitFor();
      said = (await banner.textContent()) ?? '';
      for (const size of windowSizes) {
        await page.setViewportSize(size);
        await page.screenshot({ path: join(root, `test-results/e2e-core-down-banner-${size.width}.png`) });
      }
    });
    await banner.waitFor({ state: 'detached', timeout: 60_000 });
    // `npm start`: `switchboard` is not on the PATH of a person who started it so.
    expect(said).toContain('npm start');
    // Only the page's redialling of the stopped Core's address is logged (Chromium logs every refused dial).
    expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
    await page.close();
  });

  it('Activity still shows the calls made before the restart, once each, to this page and a new one', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
    const feed = page.getByRole('table', { name: 'Activity feed' });
    const m = marker('before');
    await app.served.cli(['call', 'terminal', JSON.stringify({ command: `echo ${m}`, execution_target: 'alpha' })]);
    await feed.getByRole('row').filter({ hasText: m }).first().waitFor();
    await app.served.restart();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Lost the connection to the Core' })
      .waitFor({ state: 'detached', timeout: 60_000 });
    await poll(() => feed.getByRole('row').filter({ hasText: m }).count()).toBe(1);
    // A page opened afresh on the new Core sees it too (not only what this page remembered).
    const fresh = await openUi(app.browser, app.served.url, windowSizes[0]);
    const row = fresh.page.getByRole('table', { name: 'Activity feed' }).getByRole('row').filter({ hasText: m });
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    await fresh.page.screenshot({ path: join(root, 'test-results/e2e-activity-after-restart.png') });
    expect(fresh.errors).toEqual([]);
    await fresh.page.close();
    expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
    await page.close();
  });

  it.skipIf(!ssh)(
    "an SSH pane comes back in its directory with nothing of the window's own on its screen",
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
      const p1 = pane(page, 1);
      await p1.getByRole('combobox', { name: 'Target' }).selectOption('remote');
      await waitForText(p1, /\$ *$/m, 20_000);
      const dir = `/tmp/${marker('sb-back')}`;
      await run(p1, `mkdir -p ${dir} && cd ${dir}`);
      await poll(() => p1.getByRole('status', { name: 'Working directory' }).textContent()).toBe(dir);
      await app.served.restart();
      await waitForText(p1, /a new shell in /, 60_000);
      await waitForText(p1, new RegExp(`${dir} ?\\$ *$`, 'm'), 20_000);
      const m = marker('here');
      await run(p1, `echo ${m} "$(pwd)"`);
      await waitForText(p1, `${m} ${dir}`, 20_000);
      const text = await terminalText(p1);
      // The window typed nothing into the new shell: no `cd` line, no escape codes shown as text.
      expect(text).not.toMatch(/cd -- |printf|\\033/);
      await page.screenshot({ path: join(root, 'test-results/e2e-ssh-after-restart.png') });
      expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
      await page.close();
    },
  );

  // Last: after a Core that refuses to start, the tests that follow would have none.
  it('a Core started while the last one is still stopping waits for it, then starts; the page finds it', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
    // A background process deaf to HUP and TERM: the Core's stop waits its grace for it, so it is still stopping
    // when the next one starts.
    await app.served.cli([
      'call',
      'terminal',
      JSON.stringify({ command: "trap '' HUP TERM; sleep 600", background: true, execution_target: 'alpha' }),
    ]);
    const banner = page.getByRole('alert').filter({ hasText: 'Lost the connection to the Core' });
    await app.served.restart(() => banner.waitFor(), { overlap: true });
    await banner.waitFor({ state: 'detached', timeout: 60_000 });
    const m = marker('after');
    await run(pane(page, 1), `echo ${m}`);
    await waitForText(pane(page, 1), new RegExp(`^${m}$`, 'm'), 30_000);
    expect(errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e))).toEqual([]);
    await page.close();
  });
});
