// The Targets sidebar follows the Core live: a target added in config.yaml or registered at run time appears without
// touching open panes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useServeAndBrowser, marker, openUi, pane, root, run, terminalText, waitForText } from './harness.js';

const app = useServeAndBrowser();

/** Milliseconds until the sidebar lists `name`. */
async function timeUntilListed(page: Page, name: string, timeoutMs = 5000): Promise<number> {
  const started = Date.now();
  await page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name }).waitFor({ timeout: timeoutMs });
  return Date.now() - started;
}

describe('targets sidebar', () => {
  it('lists new targets live and leaves the open pane alone', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const sidebar = page.getByRole('list', { name: 'Targets' });
    const alpha = sidebar.getByRole('listitem', { name: 'alpha' });
    await expect.poll(() => alpha.textContent()).toContain('default');
    expect(await alpha.textContent()).toContain('local');
    // Probed as soon as the Core started: the row says what the check found, not just that the target is configured.
    await expect.poll(() => alpha.textContent()).toContain('reachable');
    expect(await alpha.textContent()).toContain('config');
    expect(await alpha.textContent()).toContain(app.served.dirs.alpha);

    const p1 = pane(page, 1);
    const m = marker('before');
    await run(p1, `echo ${m}`);
    await waitForText(p1, new RegExp(`^${m}$`, 'm'));
    // Tag the live terminal element: if the pane were re-created, the tag would be gone.
    await p1.locator('.xterm').evaluate((el) => {
      el.setAttribute('data-e2e-kept', 'yes');
    });

    // 1. An edit of config.yaml while the page is open.
    const gammaDir = join(app.served.home, '..', 'z');
    mkdirSync(gammaDir, { recursive: true });
    const configPath = join(app.served.home, 'config.yaml');
    writeFileSync(
      configPath,
      readFileSync(configPath, 'utf8') + `    gamma: { backend: local, cwd: ${JSON.stringify(gammaDir)} }\n`,
    );
    const tConfig = await timeUntilListed(page, 'gamma');
    console.log(`config target listed after ${tConfig} ms`);

    // 2. A runtime registration from the CLI, then a drain.
    const reg = await app.served.cli(['targets', 'register', 'delta', '--backend', 'local', '--cwd', gammaDir]);
    expect(reg.stderr).toBe('');
    expect(reg.code).toBe(0);
    const tRuntime = await timeUntilListed(page, 'delta');
    console.log(`runtime target listed after ${tRuntime} ms`);
    const delta = sidebar.getByRole('listitem', { name: 'delta' });
    expect(await delta.textContent()).toContain('runtime');
    await expect.poll(() => delta.textContent()).toContain('reachable');

    const drain = await app.served.cli(['targets', 'drain', 'delta']);
    expect(drain.code).toBe(0);
    await expect.poll(() => delta.textContent()).toContain('draining');
    expect(await delta.getAttribute('class')).toContain('target--draining');
    await page
      .getByRole('combobox', { name: 'Target' })
      .locator('option', { hasText: 'delta' })
      .waitFor({ state: 'attached' });
    expect(await page.locator('option[value="delta"]').isDisabled(), 'a draining target takes no new panes').toBe(true);

    // The pane did not change: same element, same target, same screen, still live.
    expect(await p1.locator('.xterm[data-e2e-kept="yes"]').count()).toBe(1);
    expect(await p1.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('alpha');
    const text = await terminalText(p1);
    expect(text).toContain(m);
    expect(text).not.toContain('[process exited]');
    const m2 = marker('after');
    await run(p1, `echo ${m2}`);
    await waitForText(p1, new RegExp(`^${m2}$`, 'm'));

    await page.screenshot({ path: join(root, 'test-results/e2e-sidebar.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a broken config edit as one clear line, keeps the previous targets, and clears it when fixed', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const configPath = join(app.served.home, 'config.yaml');
    const good = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, good.replace('backend: local, cwd:', 'backend: local, cwdd:'));
    const alert = page.getByRole('alert', { name: 'Configuration problems' });
    await alert.waitFor({ timeout: 5000 });
    expect(await alert.textContent()).toMatch(
      /unknown key "cwdd" in target "alpha" .*did you mean "cwd"\?.*previous config stays in force/,
    );
    // Nothing lost: the targets the last good config had are still listed and usable.
    expect(await page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'alpha' }).count()).toBe(1);
    await page.screenshot({ path: join(root, 'test-results/e2e-config-problem.png') });
    writeFileSync(configPath, good);
    await alert.waitFor({ state: 'detached', timeout: 5000 });
    expect(errors).toEqual([]);
  });

  it(
    "at 900×600 a target's new-terminal button is in sight without hover; " +
      'the sidebar is resized by drag and keys, and kept',
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, { width: 900, height: 600 });
      const sidebar = page.getByRole('list', { name: 'Targets' });
      const long = 'a-target-with-a-rather-long-name';
      const cwd = join(app.served.home, '..', 'a-folder-whose-path-is-long-enough-to-be-cut');
      mkdirSync(cwd, { recursive: true });
      expect((await app.served.cli(['targets', 'register', long, '--backend', 'local', '--cwd', cwd])).code).toBe(0);
      const row = sidebar.getByRole('listitem', { name: long });
      await row.waitFor();
      await page.mouse.move(600, 300);
      const open = row.getByRole('button', { name: `New terminal on ${long}` });
      expect(await open.evaluate((el) => getComputedStyle(el).opacity)).toBe('1');
      expect(await open.isVisible()).toBe(true);

      const handle = page.getByRole('separator', { name: 'Resize the sidebar' });
      const width = async (): Promise<number> => (await page.locator('.sidebar').boundingBox())!.width;
      const before = await width();
      const box = (await handle.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + 160, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      const dragged = await width();
      expect(dragged).toBeGreaterThan(before + 100);
      // The terminals keep half the window at least.
      expect(dragged).toBeLessThanOrEqual(450);
      await page.screenshot({ path: join(root, 'test-results/e2e-sidebar-wide-900.png') });
      await handle.focus();
      await page.keyboard.press('ArrowLeft');
      expect(await width()).toBeLessThan(dragged);
      await page.keyboard.press('End');
      expect(Math.round(await width())).toBe(180);
      await page.keyboard.press('ArrowRight');
      await page.reload();
      await sidebar.waitFor();
      expect(Math.round(await width())).toBe(204);
      await handle.dblclick();
      expect(Math.round(await width())).toBe(256);
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    it(
      `the Add target form says what is wrong under the field, in its words ` +
        `(${viewport.width}×${viewport.height})`,
      async () => {
        const { page, errors } = await openUi(app.browser, app.served.url, viewport);
        await page.getByRole('button', { name: 'Add target' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add target' });
        await dialog.getByLabel('Name').fill(`box${viewport.width}`);
        await dialog.getByLabel('Backend').selectOption('docker');
        await dialog.getByLabel('Image').fill('debian:bookworm');
        await dialog.locator('summary', { hasText: 'More options' }).click();
        await dialog.getByLabel('CPUs').fill('two');
        await dialog.locator('summary', { hasText: 'More options' }).click();
        await dialog.getByRole('button', { name: 'Add target' }).click();
        await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('Check the marked field');
        const cpus = dialog.getByLabel('CPUs');
        // Under the field, the field marked and focused ("More options" opened again to show it).
        expect(await cpus.getAttribute('aria-invalid')).toBe('true');
        expect(await cpus.evaluate((el) => el === document.activeElement)).toBe(true);
        const said = await cpus.evaluate(
          (el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent,
        );
        expect(said).toBe('CPUs must be a number, like 1.5');
        expect(await dialog.textContent()).not.toContain('docker_cpus');
        await page.screenshot({ path: join(root, `test-results/e2e-form-problem-${viewport.width}.png`) });
        await cpus.fill('1.5');
        expect(await cpus.getAttribute('aria-invalid')).toBeNull();
        await page.keyboard.press('Escape');
        expect(errors).toEqual([]);
        await page.close();
      },
    );
  }

  it('adds, edits, drains and removes a runtime target from the sidebar', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const sidebar = page.getByRole('list', { name: 'Targets' });
    // A row's actions show on hover but stay in the tab order, so the keyboard reaches them.
    const openOnBeta = sidebar.getByRole('button', { name: 'New terminal on beta' });
    await openOnBeta.focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('New terminal on beta');

    await page.getByRole('button', { name: 'Add target' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add target' });
    await dialog.waitFor();
    // The dialog owns the keyboard: app shortcuts do nothing behind it.
    await dialog.getByLabel('Name').fill('my');
    await page.keyboard.press('Control+Shift+T');
    await page.keyboard.press('Control+Shift+W');
    expect(await page.getByRole('tab').count()).toBe(1);
    expect(await dialog.getByLabel('Name').inputValue()).toBe('my');
    // Checked before sending: a bad name, then a name config.yaml already uses (refused by the Core).
    await dialog.getByLabel('Name').fill('bad name!');
    await dialog.getByRole('button', { name: 'Add target' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('target name');
    await dialog.getByLabel('Name').fill('alpha');
    await dialog.getByRole('button', { name: 'Add target' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toContain('config target');
    await page.screenshot({ path: join(root, 'test-results/e2e-add-target.png') });

    await dialog.getByLabel('Name').fill('eps');
    await dialog.getByLabel('Working directory').fill(app.served.dirs.beta);
    await dialog.getByRole('button', { name: 'Add target' }).click();
    await dialog.waitFor({ state: 'detached' });
    const eps = sidebar.getByRole('listitem', { name: 'eps' });
    await eps.waitFor();
    expect(await eps.textContent()).toContain('runtime');
    expect(await eps.textContent()).toContain(app.served.dirs.beta);
    const gen1 = await eps.locator('.target__meta').textContent();

    await eps.hover();
    await eps.getByRole('button', { name: 'Edit eps' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit target eps' });
    await edit.getByLabel('Working directory').fill(app.served.dirs.alpha);
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await expect.poll(() => eps.locator('.target__cwd').textContent()).toBe(app.served.dirs.alpha);
    expect(await eps.locator('.target__meta').textContent(), 'an edit is a new generation').not.toBe(gen1);

    // A pane on it opens in the edited cwd.
    await page.getByRole('combobox', { name: 'Target' }).selectOption('eps');
    await waitForText(pane(page, 1), `${app.served.dirs.alpha} $`);

    // Another edit while the pane is open: the pane stays on its generation and offers to reopen on the new one.
    await eps.hover();
    await eps.getByRole('button', { name: 'Edit eps' }).click();
    const edit2 = page.getByRole('dialog', { name: 'Edit target eps' });
    await edit2.getByLabel('Working directory').fill(join(app.served.dirs.alpha, 'sub'));
    await edit2.getByRole('button', { name: 'Save' }).click();
    const stale = pane(page, 1).getByRole('button', { name: /older generation/ });
    await stale.waitFor();
    await stale.click();
    await waitForText(pane(page, 1), `${join(app.served.dirs.alpha, 'sub')} $`);
    await stale.waitFor({ state: 'detached' });

    await eps.hover();
    await eps.getByRole('button', { name: 'Drain eps' }).click();
    await expect.poll(() => eps.textContent()).toContain('draining');
    // The pane on it goes on: draining refuses new work only.
    const m = marker('drained');
    await run(pane(page, 1), `echo ${m}`);
    await waitForText(pane(page, 1), new RegExp(`^${m}$`, 'm'));

    await eps.hover();
    await eps.getByRole('button', { name: 'Remove eps' }).click();
    await eps.getByRole('button', { name: 'Confirm remove eps' }).click();
    await eps.waitFor({ state: 'detached' });
    expect(errors).toEqual([]);
    await page.close();
  });
});
