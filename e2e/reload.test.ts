// Sessions survive a reload: the Core keeps a window's shells when the page goes and the reloaded page resumes them
// with their recent output; a pane whose page never comes back is closed after terminal.pane_keep seconds.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { connectCore } from '../src/main/transport/wsLink.js';
import { readCoreFile } from '../src/main/transport/coreFile.js';
import {
  marker,
  openUi,
  pane,
  personSecret,
  root,
  run,
  useServeAndBrowser,
  waitForPrompt,
  waitForText,
} from './harness.js';

const KEEP_SEC = 20;

const app = useServeAndBrowser(async (served) => {
  // A short keep time, and a new target to see when the Core has read the edited config.
  const path = join(served.home, 'config.yaml');
  const text = readFileSync(path, 'utf8').replace('terminal:\n', `terminal:\n  pane_keep: ${KEEP_SEC}\n`);
  writeFileSync(path, `${text}    gamma: { backend: local, cwd: ${JSON.stringify(served.dirs.beta)} }\n`);
  const info = readCoreFile(served.home);
  const { client, close } = await connectCore(info.ws_url, info.token, undefined, personSecret(app.served.url));
  try {
    for (let i = 0; i < 200 && !(await client.call('targets.list', {})).some((t) => t.name === 'gamma'); i++)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    close();
  }
});

vi.setConfig({ testTimeout: 240_000 });

async function corePanes(): Promise<string[]> {
  const info = readCoreFile(app.served.home);
  const { client, close } = await connectCore(info.ws_url, info.token, undefined, personSecret(app.served.url));
  try {
    return (await client.call('pane.list', {})).map((p) => p.pane_id);
  } finally {
    close();
  }
}

describe('a page reload', () => {
  it('keeps the running shell and its scrollback; the reloaded page types into the same shell', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    const m = marker('before-reload');
    await run(p1, `echo ${m}; echo shell-pid-$$`);
    const shown = await waitForText(p1, /shell-pid-(\d+)/);
    const pid = [...shown.matchAll(/shell-pid-(\d+)/g)].at(-1)?.[1];
    expect(pid).toBeTruthy();
    // A foreground program is running when the page goes away.
    await run(p1, 'sleep 600');
    const before = await corePanes();
    expect(before).toHaveLength(1);
    // The layout with the Core pane's id is saved (debounced) before the reload.
    await expect
      .poll(() => readFileSync(join(app.served.home, 'ui-state.json'), 'utf8'), { timeout: 15_000 })
      .toContain(before[0]!);

    await page.reload();
    await pane(page, 1).waitFor();
    const again = pane(page, 1);
    // The scrollback came back, and the shell is the same one: the sleep is still running in it.
    await waitForText(again, m, 15_000);
    await waitForText(again, 'sleep 600');
    expect(await corePanes()).toEqual(before);
    await page.screenshot({ path: join(root, 'test-results/e2e-reload-resumed.png') });
    await again.locator('.xterm').click();
    await page.keyboard.press('Control+C');
    await waitForPrompt(again);
    await run(again, 'echo same-$$');
    await waitForText(again, `same-${pid}`);
    expect(await again.locator('.dot--pane-open').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it(`a pane whose page does not come back is closed after terminal.pane_keep (${KEEP_SEC} s)`, async () => {
    const earlier = new Set(await corePanes());
    const { page } = await openUi(app.browser, app.served.url);
    await waitForPrompt(pane(page, 1));
    const mine = (await corePanes()).filter((id) => !earlier.has(id));
    expect(mine).toHaveLength(1);
    await page.close();
    // Kept for a reload first, then closed: the limit below is generous for a loaded machine, not a speed check.
    expect(await corePanes()).toContain(mine[0]);
    await expect.poll(corePanes, { timeout: (KEEP_SEC + 40) * 1000, interval: 1000 }).not.toContain(mine[0]);
  });
});
