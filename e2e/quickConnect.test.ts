// Quick connect, as a Tabby user types it: `user@host:port` in the palette opens a pane at once on a session target
// (after the usual host-key question), "Save target…" keeps it, and a session target not saved is gone once the Core
// stops. The Add-target form reads the same line and lists the hosts of the ~/.ssh/config in the test's own HOME.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, PrivateSshd } from '../scripts/privateSshd.js';
import { loadSshEnv } from '../scripts/testEnv.js';
import { marker, openUi, pane, root, run, useServeAndBrowser, waitForText } from './harness.js';

const ssh = loadSshEnv();
let sshd: (PrivateSshd & { knownHostsLine: string }) | undefined;
let port = 0;

beforeAll(async () => {
  if (!ssh) return;
  port = await freePort();
  sshd = PrivateSshd.ownConfig(ssh.user, port, { sftp: 'internal-sftp' });
  await sshd.start();
});
afterAll(() => sshd?.dispose());

const app = useServeAndBrowser((served) => {
  if (!ssh) return;
  // The person's own ssh setup, in the HOME the Core runs with: a default key, and a config with a host and a pattern.
  const dotSsh = join(served.env.HOME ?? '', '.ssh');
  mkdirSync(dotSsh, { recursive: true, mode: 0o700 });
  copyFileSync(ssh.key, join(dotSsh, 'id_ed25519'));
  writeFileSync(
    join(dotSsh, 'config'),
    [
      'Host staging-box',
      '  HostName 127.0.0.1',
      `  User ${ssh.user}`,
      `  Port ${port}`,
      '  IdentityFile ~/.ssh/id_ed25519',
      'Host *.internal',
      '  User nobody',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
});

vi.setConfig({ testTimeout: 180_000 });
const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });

/**
 * Answers the host-key question once the dialog has the keyboard (Reject focused): it arrived while the palette was
 * being typed into, so it waits for a pause first.
 */
async function trustKey(page: Page): Promise<void> {
  const trust = page.getByRole('alertdialog', { name: 'Trust host key?' });
  await trust.waitFor({ timeout: 20_000 });
  await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Reject');
  await trust.getByRole('button', { name: 'Trust and remember' }).click();
  await trust.waitFor({ state: 'detached' });
}

async function targetsJson(): Promise<Array<{ name: string; provider?: string; generation: string }>> {
  const r = await app.served.cli(['targets', 'list', '--json']);
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout).targets;
}

describe.skipIf(!ssh)('quick connect', () => {
  it('opens a working pane from the palette on a session target, and "Save target…" keeps it', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    const name = `127.0.0.1-${port}`;
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type(`${ssh!.user}@127.0.0.1:${port}`);
    const offer = page.getByRole('option', { name: `Connect to ${ssh!.user}@127.0.0.1:${port}` });
    await offer.waitFor();
    expect(await offer.getAttribute('aria-selected')).toBe('true');
    await page.screenshot({ path: join(root, 'test-results/e2e-quick-connect-palette.png') });
    await page.keyboard.press('Enter');

    // The private sshd's key is new: the usual question, then a live shell on it in a new tab.
    await trustKey(page);
    await poll(() => page.getByRole('tab').count()).toBe(2);
    const p = pane(page, 1);
    await poll(() => p.getByRole('combobox', { name: 'Target' }).inputValue()).toBe(name);
    await waitForText(p, /\$ *$/m, 20_000);
    const m = marker('quick');
    await run(p, `echo ${m} $(whoami)`);
    await waitForText(p, `${m} ${ssh!.user}`, 15_000);
    const session = (await targetsJson()).find((t) => t.name === name);
    expect(session?.provider).toBe('session');
    const generation = session?.generation;

    // Connecting again to the same place uses the same session target (no twin).
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type(`ssh ${ssh!.user}@127.0.0.1 -p ${port}`);
    await page.getByRole('option', { name: `Connect to ${ssh!.user}@127.0.0.1:${port}` }).click();
    await poll(() => page.getByRole('tab').count()).toBe(3);
    await waitForText(pane(page, 1), /\$ *$/m, 20_000);
    expect((await targetsJson()).filter((t) => t.name.startsWith(name))).toHaveLength(1);

    // Save target…: the Add-target form, filled; adding keeps it as the person's own target.
    await page.setViewportSize({ width: 900, height: 600 });
    // Split at the small size: "Save target…" shrinks to its icon, and Close stays inside each narrow pane.
    await page.keyboard.press('Control+Shift+D');
    await waitForText(pane(page, 2), /\$ *$/m, 20_000);
    for (const n of [1, 2]) {
      const box = await pane(page, n).boundingBox();
      const close = await pane(page, n).getByRole('button', { name: 'Close pane' }).boundingBox();
      expect(close!.x + close!.width).toBeLessThanOrEqual(box!.x + box!.width);
    }
    await page.screenshot({ path: join(root, 'test-results/e2e-quick-connect-split-900.png') });
    await pane(page, 1).getByRole('button', { name: 'Save target…' }).click();
    const form = page.getByRole('dialog', { name: 'Add target' });
    await form.waitFor();
    expect(await form.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe(name);
    expect(await form.locator('[name="ssh_host"]').inputValue()).toBe('127.0.0.1');
    expect(await form.locator('[name="ssh_port"]').inputValue()).toBe(String(port));
    await page.screenshot({ path: join(root, 'test-results/e2e-quick-connect-save-900.png') });
    await form.getByRole('button', { name: 'Add target' }).click();
    await form.waitFor({ state: 'detached' });
    await poll(async () => (await targetsJson()).find((t) => t.name === name)?.provider).toBe('ui');
    await poll(() => pane(page, 1).getByRole('button', { name: 'Save target…' }).count()).toBe(0);
    // Saved as it was, it is the same runtime identity: the open pane goes on, not on an "older generation".
    expect((await targetsJson()).find((t) => t.name === name)?.generation).toBe(generation);
    expect(
      await pane(page, 1)
        .getByRole('button', { name: /older generation/ })
        .count(),
    ).toBe(0);
    const m2 = marker('saved');
    await run(pane(page, 1), `echo ${m2}`);
    await waitForText(pane(page, 1), new RegExp(`^${m2}$`, 'm'), 15_000);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a session target not saved is gone once the Core stops; a saved one stays', async () => {
    const { page } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.keyboard.press('Control+Shift+P');
    await page.keyboard.type(`ssh -l ${ssh!.user} localhost -p ${port}`);
    await page.getByRole('option', { name: `Connect to ${ssh!.user}@localhost:${port}` }).click();
    await trustKey(page);
    await waitForText(pane(page, 1), /\$ *$/m, 20_000);
    const fleeting = `localhost-${port}`;
    expect((await targetsJson()).find((t) => t.name === fleeting)?.provider).toBe('session');
    await page.close();
    await app.served.restart();
    const names = (await targetsJson()).map((t) => t.name);
    expect(names).not.toContain(fleeting);
    expect(names).toContain(`127.0.0.1-${port}`);
  });
});

describe.skipIf(!ssh)('the Add-target form', () => {
  for (const viewport of [
    { width: 1400, height: 900 },
    { width: 900, height: 600 },
  ]) {
    const size = `${viewport.width}×${viewport.height}`;
    it(`lists the hosts of ~/.ssh/config and reads a quick-connect line (${size})`, async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, viewport);
      await page.getByRole('button', { name: 'Add target' }).click();
      const form = page.getByRole('dialog', { name: 'Add target' });
      // Quick connect and the hosts of ~/.ssh/config are the SSH backend's: offered once it is picked.
      await form.getByLabel('Backend').selectOption('ssh');
      const pick = form.getByRole('combobox', { name: 'From ~/.ssh/config' });
      await pick.waitFor();
      // One host, resolved; the pattern is not a host to connect to.
      expect(await pick.locator('option').allTextContents()).toEqual(['pick a host…', 'staging-box (127.0.0.1)']);

      const quick = form.getByRole('textbox', { name: 'Quick connect' });
      await quick.fill('me@');
      await quick.blur();
      await form.getByText('type a host after the @').waitFor();
      await quick.fill('deploy@build.example.com:2200');
      await poll(() => form.locator('[name="ssh_host"]').inputValue()).toBe('build.example.com');
      expect(await form.locator('[name="ssh_user"]').inputValue()).toBe('deploy');
      expect(await form.locator('[name="ssh_port"]').inputValue()).toBe('2200');
      expect(await form.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe(
        'build.example.com-2200',
      );

      await pick.selectOption('staging-box');
      await poll(() => form.locator('[name="ssh_host"]').inputValue()).toBe('staging-box');
      expect(await form.locator('[name="ssh_user"]').inputValue()).toBe(ssh!.user);
      expect(await form.locator('[name="ssh_port"]').inputValue()).toBe(String(port));
      expect(await form.locator('[name="ssh_key"]').inputValue()).toBe(
        join(app.served.env.HOME ?? '', '.ssh/id_ed25519'),
      );
      const name = `staging-${viewport.width}`;
      await form.getByRole('textbox', { name: 'Name', exact: true }).fill(name);
      await page.screenshot({ path: join(root, `test-results/e2e-add-target-ssh-config-${viewport.width}.png`) });
      await form.getByRole('button', { name: 'Add target' }).click();
      await form.waitFor({ state: 'detached' });
      const row = page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name });
      await row.waitFor();
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});
