// An SSH pane whose connection drops stays in its place and reconnects by itself: a countdown with "Reconnect now"
// and "Cancel", a marker line in the scrollback, the new shell in the old one's directory. A private sshd is killed
// under it (its per-connection process, then the whole daemon) and started again on the same port.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort, PrivateSshd } from '../scripts/privateSshd.js';
import { loadSshEnv } from '../scripts/testEnv.js';
import { marker, openUi, pane, root, run, terminalText, useServeAndBrowser, waitForText } from './harness.js';

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
  if (!ssh || !sshd) return;
  const config = join(served.home, 'config.yaml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8') +
      `    flaky: { backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ` +
      `ssh_user: ${ssh.user}, ssh_key: ${ssh.key}, cwd: /tmp }\n`,
  );
  writeFileSync(join(served.home, 'known_hosts'), `${sshd.knownHostsLine}\n`);
});

// Shells, sshd and Chromium share two cores with other work: wait for state generously (limits, not speed checks).
vi.setConfig({ testTimeout: 180_000 });
const poll = <T>(fn: () => T | Promise<T>, timeout = 20_000) => expect.poll(fn, { timeout });

/** A window whose first pane runs a shell on `flaky`. */
async function paneOnFlaky() {
  const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
  const p1 = pane(page, 1);
  await p1.getByRole('combobox', { name: 'Target' }).selectOption('flaky');
  await waitForText(p1, /\$ *$/m, 20_000);
  return { page, errors, p1 };
}

const reconnectedLines = (text: string): number => text.match(/— reconnected to flaky at \d\d:\d\d —/g)?.length ?? 0;

describe.skipIf(!ssh)('an SSH pane whose connection drops', () => {
  it('counts down, reconnects by itself in the same directory, and "Reconnect now" skips the wait', async () => {
    const { page, errors, p1 } = await paneOnFlaky();
    const dir = `/tmp/${marker('sb-reconnect')}`;
    await run(p1, `mkdir -p ${dir} && cd ${dir}`);
    await poll(() => p1.getByRole('status', { name: 'Working directory' }).textContent()).toBe(dir);

    // 1. The connection drops under the pane: the countdown shows, then the Core reconnects by itself.
    sshd!.dropConnections();
    const bar = p1.getByRole('status', { name: 'Reconnecting' });
    await bar.waitFor({ timeout: 20_000 });
    expect(await bar.textContent()).toMatch(/connection lost — reconnecting (in \d+ s|to flaky)/);
    expect(await bar.getByRole('button', { name: 'Cancel' }).count()).toBe(1);
    await page.screenshot({ path: join(root, 'test-results/e2e-ssh-reconnect-countdown.png') });
    await waitForText(p1, /— connection to flaky lost at \d\d:\d\d; reconnecting —/);
    await poll(() => terminalReconnects(p1)).toBe(1);
    await bar.waitFor({ state: 'detached' });
    // The same pane (still one), its scrollback kept, the new shell where the old one was, and keys reach it.
    expect(await page.getByRole('combobox', { name: 'Target' }).count()).toBe(1);
    // The new shell is in the audit as one was opened: a line, never what is typed.
    const reconnectLines = () =>
      readFileSync(join(app.served.home, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .filter((r) => r.action === 'reconnect');
    await poll(() => reconnectLines().length).toBe(1);
    expect(reconnectLines()).toMatchObject([
      { kind: 'pane', execution_target: 'flaky', outcome: 'reconnected', attempt: 1 },
    ]);
    const m1 = marker('back');
    await run(p1, `echo ${m1} $(pwd)`);
    await waitForText(p1, `${m1} ${dir}`, 15_000);

    // 2. The whole daemon goes: attempts fail (said in the bar), the waits grow; it comes back, "Reconnect now" goes
    //    at once instead of at the end of a wait of 16 s.
    sshd!.stop();
    await bar.waitFor({ timeout: 20_000 });
    // A reload meanwhile: the Core goes on trying, and the page finds the same pane counting down.
    await poll(() => bar.textContent(), 30_000).toMatch(/attempt 1: /);
    await page.reload();
    await bar.waitFor({ timeout: 20_000 });
    expect(await terminalText(p1)).toContain(m1);
    await poll(() => bar.textContent(), 60_000).toMatch(/reconnecting in (1[0-6]) s/);
    expect(await bar.textContent()).toMatch(/attempt \d+: .*(refused|connect)/i);
    await page.setViewportSize({ width: 900, height: 600 });
    await page.screenshot({ path: join(root, 'test-results/e2e-ssh-reconnect-900.png') });
    // The bar's buttons stay inside the pane at the small size.
    const paneBox = await p1.boundingBox();
    const buttonBox = await bar.getByRole('button', { name: 'Cancel' }).boundingBox();
    expect(buttonBox!.x + buttonBox!.width).toBeLessThanOrEqual(paneBox!.x + paneBox!.width);
    await sshd!.start();
    await bar.getByRole('button', { name: 'Reconnect now' }).click();
    // Well before the 10 s or more the countdown still had: the attempt went when asked.
    await poll(() => terminalReconnects(p1), 7000).toBe(2);
    const m2 = marker('now');
    await run(p1, `echo ${m2} $(pwd)`);
    await waitForText(p1, `${m2} ${dir}`, 15_000);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('Cancel stops the attempts; the pane says so and a key opens a new shell', async () => {
    const { page, p1 } = await paneOnFlaky();
    sshd!.stop();
    const bar = p1.getByRole('status', { name: 'Reconnecting' });
    await bar.waitFor({ timeout: 20_000 });
    await bar.getByRole('button', { name: 'Cancel' }).click();
    await bar.waitFor({ state: 'detached' });
    await waitForText(p1, 'connection lost — press a key to reconnect');
    expect(await p1.locator('.chip').first().textContent()).toBe('connection lost');
    await sshd!.start();
    await p1.locator('.xterm').click();
    await page.keyboard.press('Enter');
    const m = marker('fresh');
    await poll(() => p1.locator('.dot--pane-open').count()).toBe(1);
    await run(p1, `echo ${m}`);
    await waitForText(p1, new RegExp(`^${m}$`, 'm'), 15_000);
    await page.close();
  });
});

describe.skipIf(!ssh)('an SSH pane whose host comes back refusing the login', () => {
  it('does not try again, and says why', async () => {
    const { page, errors, p1 } = await paneOnFlaky();
    // The same server (its host key) on the same port, now with no authorized keys for anyone.
    sshd!.stop();
    const config = readFileSync(join(sshd!.dir, 'sshd_config'), 'utf8').replace(
      'AuthorizedKeysFile .ssh/authorized_keys',
      'AuthorizedKeysFile /nonexistent',
    );
    const lockedDir = mkdtempSync(join(tmpdir(), 'sb-sshd-locked-'));
    writeFileSync(join(lockedDir, 'sshd_config'), config);
    const locked = new PrivateSshd(join(lockedDir, 'sshd_config'), port, lockedDir);
    try {
      await locked.start();
      await waitForText(p1, /not reconnecting: authentication failed/, 30_000);
      await p1.getByRole('status', { name: 'Reconnecting' }).waitFor({ state: 'detached' });
      expect(await p1.locator('.chip').first().textContent()).toBe('connection lost');
    } finally {
      locked.dispose();
      await sshd!.start();
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!ssh)('an SSH pane whose host comes back with another key', () => {
  it('does not reconnect to it, and says why', async () => {
    const { page, errors, p1 } = await paneOnFlaky();
    // Another server on the same address: a key nobody trusted for it, where a trusted one was.
    sshd!.stop();
    const impostor = PrivateSshd.ownConfig(ssh!.user, port, { sftp: 'internal-sftp' });
    try {
      await impostor.start();
      await waitForText(p1, /not reconnecting: .*host key/i, 30_000);
      await p1.getByRole('status', { name: 'Reconnecting' }).waitFor({ state: 'detached' });
      expect(await p1.locator('.chip').first().textContent()).toBe('connection lost');
      await page.screenshot({ path: join(root, 'test-results/e2e-ssh-reconnect-hostkey.png') });
      expect(await terminalText(p1)).not.toMatch(/— reconnected to flaky/);
    } finally {
      impostor.dispose();
    }
    expect(errors).toEqual([]);
    await page.close();
  });
});

async function terminalReconnects(p: ReturnType<typeof pane>): Promise<number> {
  return reconnectedLines(await terminalText(p));
}
