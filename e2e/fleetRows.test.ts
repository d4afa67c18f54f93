// A 60-target fleet on one unreachable address, as a newcomer met it (issue 39, items 5 and 9): each target's health
// names that target (not the first of them to dial) in doctor, `targets show` and its sidebar row; compact rows keep
// an unreachable target's name whole; and whatever the sidebar cuts ends in an ellipsis.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { addTargets, openUi, root, useServeAndBrowser, windowSizes } from './harness.js';

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>, timeout = 60_000) => expect.poll(fn, { timeout });

const names = Array.from({ length: 60 }, (_, i) => `fleet-node-${String(i + 1).padStart(2, '0')}`);

/** A loopback port nobody listens on: one a server took and let go. */
function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const a = server.address();
      server.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

const app = useServeAndBrowser(async (served) => {
  const port = await closedPort();
  const key = join(served.home, 'fleet_ed25519');
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  addTargets(
    served,
    names.map(
      (n) =>
        `    ${n}: { backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ssh_user: deploy, ` +
        `ssh_key: ${JSON.stringify(key)}, cwd: /srv/app }`,
    ),
  );
});

/**
 * What the sidebar cuts without an ellipsis to say so: text that runs past the edge of the box that clips it (its
 * nearest ancestor with overflow hidden), where that box does not end it in an ellipsis, which only a box of text shows
 * (a flex row clips its items bare).
 */
function cutWithoutEllipsis(page: Page): Promise<string[]> {
  return page.getByRole('complementary', { name: 'Sidebar' }).evaluate((sidebar) => {
    const out: string[] = [];
    const walker = document.createTreeWalker(sidebar, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (!(n.textContent ?? '').trim() || !parent) continue;
      if (parent.closest('.target__mini, .visually-hidden, svg, select, option')) continue;
      let clip: HTMLElement | null = parent;
      while (clip && clip !== sidebar && !['hidden', 'clip'].includes(getComputedStyle(clip).overflowX))
        clip = clip.parentElement;
      if (!clip || clip === sidebar || clip.clientWidth === 0) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      const rect = range.getBoundingClientRect();
      if (rect.width === 0 || rect.right <= clip.getBoundingClientRect().right + 1) continue;
      const s = getComputedStyle(clip);
      if (s.textOverflow === 'ellipsis' && !s.display.includes('flex')) continue;
      out.push(`${clip.className}: ${(n.textContent ?? '').slice(0, 50)}`);
    }
    return out;
  });
}

describe('a fleet on one unreachable address', () => {
  it('each target says its own name in doctor, targets show and its sidebar row', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
    const doctor = await app.served.cli(['doctor', '--json']);
    const report = JSON.parse(doctor.stdout) as { targets: Array<{ name: string; problem?: string }> };
    const fleet = report.targets.filter((t) => t.name.startsWith('fleet-node-'));
    expect(fleet).toHaveLength(60);
    for (const t of fleet) expect(t.problem, t.name).toContain(`(target "${t.name}")`);

    const shown = await app.served.cli(['targets', 'show', 'fleet-node-37']);
    expect(shown.stdout).toContain('(target "fleet-node-37")');
    expect(shown.stdout).not.toMatch(/\(target "fleet-node-(?!37)\d\d"\)/);

    const row = page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'fleet-node-37' });
    await poll(() => row.textContent()).toContain('(target "fleet-node-37")');
    expect(await row.textContent()).not.toMatch(/\(target "fleet-node-(?!37)\d\d"\)/);
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const size of windowSizes) {
    const at = `${size.width}×${size.height}`;
    it(`compact rows keep an unreachable target's name whole; nothing cut without an ellipsis (${at})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, size);
      const list = page.getByRole('list', { name: 'Targets' });
      await poll(() => list.getByRole('listitem', { name: 'fleet-node-01' }).textContent()).toContain('unreachable');
      // Full rows first: their lines of meta text end in an ellipsis where they are cut.
      expect(await cutWithoutEllipsis(page)).toEqual([]);

      await page.keyboard.press('Control+,');
      const settings = page.getByRole('dialog', { name: 'Settings' });
      await settings.getByLabel('Compact target rows (one line each)').check();
      await settings.getByRole('button', { name: 'Done' }).click();
      // Grouped: the group headers ("config · 62 targets · 60 unreachable") are cut with an ellipsis too.
      await page.getByLabel('Group targets').selectOption('source');
      await list.getByRole('button', { name: /^config/ }).waitFor();
      // Each name's text inside its box, to the fraction of a pixel (a name short of it by less shows an ellipsis).
      const cutNames = await list.locator('.target__name').evaluateAll((els) =>
        els
          .filter((el) => {
            const box = el.getBoundingClientRect();
            const range = document.createRange();
            range.selectNodeContents(el);
            return box.height > 0 && range.getBoundingClientRect().right > box.right + 0.25;
          })
          .map((el) => el.textContent),
      );
      expect(cutNames).toEqual([]);
      expect(await list.getByRole('listitem', { name: 'fleet-node-01' }).textContent()).toContain('fleet-node-01');
      expect(await cutWithoutEllipsis(page)).toEqual([]);
      await page.screenshot({ path: join(root, `test-results/e2e-fleet-compact-${size.width}.png`) });

      await page.getByLabel('Group targets').selectOption('none');
      await page.keyboard.press('Control+,');
      await settings.getByLabel('Compact target rows (one line each)').uncheck();
      await settings.getByRole('button', { name: 'Done' }).click();
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});
