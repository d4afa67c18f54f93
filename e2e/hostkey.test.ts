// An SSH target whose host key nobody trusted yet: the pane waits on "Trust host key?" until the person decides.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSshEnv } from '../scripts/testEnv.js';
import { launchChromium, marker, openUi, pane, run, startServe, waitForText, type Served } from './harness.js';

const ssh = loadSshEnv();

let served: Served;
let browser: Browser;

beforeAll(async () => {
  if (!ssh) return;
  served = await startServe();
  const configPath = join(served.home, 'config.yaml');
  const sshTarget = (name: string) =>
    `    ${name}: { backend: ssh, ssh_host: ${ssh.host}, ssh_port: ${ssh.port}, ssh_user: ${ssh.user}, ` +
    `ssh_key: ${ssh.key}, cwd: /tmp }\n`;
  writeFileSync(configPath, readFileSync(configPath, 'utf8') + sshTarget('remote'));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await served?.stop();
});

describe.skipIf(!ssh)('unknown SSH host key', () => {
  it('is not accepted until trusted; a call from the CLI can be rejected; "Trust and remember" stores it', async () => {
    // 1. A CLI call meets the unknown key first: it waits, is listed, and a CLI deny refuses it.
    const pendingCall = served.cli(['call', 'terminal', '{"command":"pwd","execution_target":"remote"}', '--json']);
    let listed = '';
    await expect
      .poll(async () => (listed = (await served.cli(['approvals', 'list', '--json'])).stdout), { timeout: 15_000 })
      .toContain(ssh!.fingerprint);
    const id = JSON.parse(listed).approvals[0].id as string;
    expect((await served.personCli(['approvals', 'deny', id])).code).toBe(0);
    const refused = await pendingCall;
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/host key/i);
    expect(refused.stderr).not.toMatch(/AAAA/);
    expect(
      existsSync(join(served.home, 'known_hosts')) &&
        readFileSync(join(served.home, 'known_hosts'), 'utf8').includes(String(ssh!.port)),
    ).toBe(false);

    // 2. The UI: picking the target opens the dialog with the fingerprint; Reject has the focus.
    const { page, errors } = await openUi(browser, served.url);
    const p1 = pane(page, 1);
    await p1.getByRole('combobox', { name: 'Target' }).selectOption('remote');
    const dialog = page.getByRole('alertdialog', { name: 'Trust host key?' });
    await dialog.waitFor({ timeout: 15_000 });
    expect(await dialog.locator('#hostkey-fingerprint').textContent()).toBe(ssh!.fingerprint);
    expect(await dialog.textContent()).toContain(`${ssh!.host}:${ssh!.port}`);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Reject');
    await page.screenshot({ path: 'test-results/e2e-hostkey.png' });

    // 3. Trust and remember: the pane connects, and the key is in Switchboard's own store.
    await dialog.getByRole('button', { name: 'Trust and remember' }).click();
    await dialog.waitFor({ state: 'detached' });
    await waitForText(p1, /\$ *$/m, 15_000);
    const m = marker('ssh');
    await run(p1, `echo ${m} $(whoami)`);
    await waitForText(p1, `${m} ${ssh!.user}`, 15_000);
    expect(readFileSync(join(served.home, 'known_hosts'), 'utf8')).toContain(`[${ssh!.host}]:${ssh!.port}`);

    // 4. Remembered: a CLI call now runs without asking.
    const ok = await served.cli(['call', 'terminal', '{"command":"whoami","execution_target":"remote"}', '--json']);
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ execution_target: 'remote', output: `${ssh!.user}\n` });
    expect(errors).toEqual([]);
  }, 90_000);
});
