// Honest health in the window: a dead SSH port turns its row red without a pane; a missing cwd is flagged in the
// row and in a pane's header; the status bar counts only what was checked; a doctor run updates the rows.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { freePort } from '../scripts/privateSshd.js';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openUi, pane, root, useServeAndBrowser } from './harness.js';

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000 });

const app = useServeAndBrowser();

describe('target health in the window', () => {
  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    it(
      `a dead SSH port and a missing cwd show in the sidebar without opening a pane ` +
        `(${viewport.width}×${viewport.height})`,
      async () => {
        const { page, errors } = await openUi(app.browser, app.served.url, viewport);
        const sidebar = page.getByRole('list', { name: 'Targets' });
        const base = join(app.served.home, '..');
        const key = join(base, `id-${viewport.width}`);
        execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
        const port = await freePort();
        const down = `down${viewport.width}`;
        const reg = await app.served.cli([
          'targets',
          'register',
          down,
          '--backend',
          'ssh',
          '--host',
          '127.0.0.1',
          '--port',
          String(port),
          '--user',
          'nobody',
          '--key',
          key,
        ]);
        expect(reg.stderr).toBe('');
        const row = sidebar.getByRole('listitem', { name: down });
        await poll(() => row.getAttribute('class')).toContain('target--unreachable');
        expect(await row.textContent()).toContain('unreachable');
        expect(await row.getByLabel(/^checked /).textContent()).toMatch(/^(just now|\d+ s ago)$/);
        expect(await row.getByRole('status').first().textContent()).toMatch(/refused|connect/i);
        // Nothing was opened on it: the only pane is the first one, on alpha.
        expect(await page.getByRole('combobox', { name: 'Target' }).count()).toBe(1);

        const missing = join(base, `gone-${viewport.width}`, 'deeper');
        const lost = `lost${viewport.width}`;
        expect((await app.served.cli(['targets', 'register', lost, '--backend', 'local', '--cwd', missing])).code).toBe(
          0,
        );
        const lostRow = sidebar.getByRole('listitem', { name: lost });
        await poll(() => lostRow.textContent()).toContain(`cwd ${missing} does not exist on ${lost}`);
        expect(await lostRow.textContent()).toContain('reachable');

        // The status bar counts what was checked: the dead one is not among the reachable.
        await poll(() => page.getByLabel('Target health').textContent()).toMatch(/^(\d+)\/(\d+) targets reachable/);
        const [, up, checked] =
          /^(\d+)\/(\d+)/.exec((await page.getByLabel('Target health').textContent()) ?? '') ?? [];
        expect(Number(up)).toBeLessThan(Number(checked));

        await page.screenshot({ path: join(root, `test-results/e2e-health-${viewport.width}.png`) });
        expect(errors).toEqual([]);
        await page.close();
      },
    );
  }

  it('a pane on a target whose cwd is missing says where it was meant to start', async () => {
    const missing = join(app.served.home, '..', 'never', 'made');
    expect((await app.served.cli(['targets', 'register', 'astray', '--backend', 'local', '--cwd', missing])).code).toBe(
      0,
    );
    const { page, errors } = await openUi(app.browser, app.served.url);
    const row = page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'astray' });
    await row.hover();
    await row.getByRole('button', { name: 'New terminal on astray' }).click();
    const p = pane(page, 1);
    await poll(() =>
      page
        .getByRole('status')
        .filter({ hasText: `${missing} missing` })
        .count(),
    ).toBe(1);
    expect(await p.count()).toBe(1);
    await page.screenshot({ path: join(root, 'test-results/e2e-health-pane-cwd.png') });
    // Once the folder exists, the row's flag goes at the next check (a doctor run is one).
    mkdirSync(missing, { recursive: true });
    await app.served.cli(['doctor']);
    await poll(() =>
      page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'astray' }).textContent(),
    ).not.toContain('does not exist');
    expect(errors).toEqual([]);
    await page.close();
  });
});
