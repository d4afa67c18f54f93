// SSH panes and processes as a newcomer met them (issue 39, items 6, 10 and 13): a key that tries again after a
// lost connection is typed into the new shell, which starts in the pane's directory; a key during the countdown does
// not stretch the waits; the "— reconnected —" line is readable on Solarized Light; a process whose target is only
// unreachable for now is not called retired, and Kill ends one over SSH; a host whose key changed is not shown
// reachable after the next look at its port. A private sshd is stopped and started under the window.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { freePort, PrivateSshd } from '../scripts/privateSshd.js';
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

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>, timeout = 30_000) => expect.poll(fn, { timeout });

const ssh = loadSshEnv();
let sshd: (PrivateSshd & { knownHostsLine: string }) | undefined;
let port = 0;
/** A host key that is not the shared sshd's: known_hosts says its key is this one, so to the Core the key CHANGED. */
const strangerDir = mkdtempSync(join(tmpdir(), 'sb-stranger-'));

beforeAll(async () => {
  if (!ssh) return;
  port = await freePort();
  sshd = PrivateSshd.ownConfig(ssh.user, port, { sftp: 'internal-sftp' });
  await sshd.start();
});
afterAll(() => {
  sshd?.dispose();
  rmSync(strangerDir, { recursive: true, force: true });
});

const app = useServeAndBrowser((served) => {
  if (!ssh || !sshd) return;
  const key = join(strangerDir, 'host');
  spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const stranger = readFileSync(`${key}.pub`, 'utf8').split(' ').slice(0, 2).join(' ');
  addTargets(
    served,
    [
      `    flaky: { backend: ssh, ssh_host: 127.0.0.1, ssh_port: ${port}, ssh_user: ${ssh.user}, ` +
        `ssh_key: ${ssh.key}, cwd: /tmp }`,
      sshTargetLine('changed', ssh, 'cwd: /tmp'),
    ],
    [sshd.knownHostsLine, `[${ssh.host}]:${ssh.port} ${stranger}`],
  );
});

/** A window whose first pane runs a shell on `flaky`, in a directory of its own (not the target's /tmp). */
async function paneInDir(size: (typeof windowSizes)[number] = windowSizes[0]): Promise<{
  page: Page;
  errors: string[];
  p1: Locator;
  dir: string;
}> {
  const { page, errors } = await openUi(app.browser, app.served.url, size);
  const p1 = pane(page, 1);
  await p1.getByRole('combobox', { name: 'Target' }).selectOption('flaky');
  await waitForText(p1, /\$ *$/m, 20_000);
  const dir = `/tmp/${marker('sb-pane')}`;
  await run(p1, `mkdir -p ${dir} && cd ${dir}`);
  await poll(() => p1.getByRole('status', { name: 'Working directory' }).textContent()).toBe(dir);
  return { page, errors, p1, dir };
}

const relative = (c: number): number => {
  const s = c / 255;
  return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
};
/** WCAG contrast of two `rgb(…)` colours, the first drawn at `alpha` over the second. */
function contrast(fg: number[], bg: number[], alpha: number): number {
  const seen = fg.map((c, i) => c * alpha + (bg[i] ?? 0) * (1 - alpha));
  const lum = (c: number[]) => 0.2126 * relative(c[0]!) + 0.7152 * relative(c[1]!) + 0.0722 * relative(c[2]!);
  const [a, b] = [lum(seen), lum(bg)].sort((x, y) => y - x);
  return (a! + 0.05) / (b! + 0.05);
}

describe.skipIf(!ssh)('SSH, as a newcomer met it', () => {
  it('a key that tries again after a lost connection reaches the new shell, in the pane directory', async () => {
    const { page, errors, p1, dir } = await paneInDir();
    sshd!.stop();
    const bar = p1.getByRole('status', { name: 'Reconnecting' });
    await bar.waitFor({ timeout: 20_000 });
    await bar.getByRole('button', { name: 'Cancel' }).click();
    await waitForText(p1, 'connection lost — press a key to reconnect');
    await sshd!.start();
    // The first key tries again: it, and every key after it, reach the new shell.
    await p1.locator('.xterm').click();
    const m = marker('typed');
    await page.keyboard.type(`echo ${m} "$(pwd)"`);
    await page.keyboard.press('Enter');
    await waitForText(p1, `${m} ${dir}`, 30_000);
    expect(await terminalText(p1)).not.toMatch(/command not found/);
    await page.screenshot({ path: join(root, 'test-results/e2e-ssh-retry-key.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a key pressed during the countdown does not stretch the waits (2 s, then 2 s again, not 8 s)', async () => {
    const { page, errors, p1 } = await paneInDir();
    sshd!.stop();
    const bar = p1.getByRole('status', { name: 'Reconnecting' });
    await poll(() => bar.textContent().catch(() => ''), 20_000).toMatch(/reconnecting in 2 s/);
    // A key in the pane tries at once; the host is still down.
    await p1.locator('.xterm').click();
    await page.keyboard.press('x');
    await poll(() => bar.textContent(), 20_000).toMatch(/attempt 1: /);
    const waits = (await bar.textContent())?.match(/reconnecting in (\d+) s/)?.[1];
    expect(Number(waits)).toBeLessThanOrEqual(2);
    await bar.getByRole('button', { name: 'Cancel' }).click();
    await sshd!.start();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the "— reconnected —" line is readable on Solarized Light', async () => {
    const { page, errors, p1 } = await paneInDir();
    await page.keyboard.press('Control+,');
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByLabel('Terminal colours').selectOption({ label: 'Solarized Light' });
    await settings.getByRole('button', { name: 'Done' }).click();
    sshd!.dropConnections();
    await waitForText(p1, /— reconnected to flaky at \d\d:\d\d —/, 30_000);
    const line = p1.locator('.xterm-rows span', { hasText: '— reconnected to flaky' }).first();
    const seen = await line.evaluate((el) => {
      const rgb = (s: string) => (s.match(/[\d.]+/g) ?? []).map(Number);
      const fg = getComputedStyle(el);
      const bg = getComputedStyle(el.closest('.xterm')!.querySelector('.xterm-viewport')!).backgroundColor;
      let alpha = Number(fg.opacity);
      for (let p = el.parentElement; p && !p.classList.contains('xterm'); p = p.parentElement)
        alpha *= Number(getComputedStyle(p).opacity);
      const c = rgb(fg.color);
      return { fg: c.slice(0, 3), alpha: alpha * (c[3] ?? 1), bg: rgb(bg).slice(0, 3) };
    });
    expect(contrast(seen.fg, seen.bg, seen.alpha)).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: join(root, 'test-results/e2e-ssh-reconnected-solarized-light.png') });
    await page.keyboard.press('Control+,');
    await settings.getByRole('button', { name: 'Reset to defaults' }).click();
    await settings.getByRole('button', { name: 'Done' }).click();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a process whose target is only unreachable for now is not called retired; Kill ends one over SSH', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
    const call = (command: string) =>
      app.served.cli([
        'call',
        'terminal',
        JSON.stringify({ command, background: true, execution_target: 'flaky' }),
        '--json',
      ]);
    const loop = marker('loop');
    expect((await call(`while true; do sleep 1; done # ${loop}`)).code).toBe(0);
    const processes = page.getByRole('region', { name: 'Processes' });
    await processes.getByRole('button', { name: 'All targets' }).click();
    const row = processes.getByRole('row', { name: `while true; do sleep 1; done # ${loop}` });
    await row.waitFor();
    // Kill, as a person does it in the panel.
    await row.getByRole('button', { name: /^Kill / }).click();
    await poll(() => row.locator('.badge').first().textContent()).toBe('killed');

    const held = marker('held');
    expect((await call(`sleep 600 # ${held}`)).code).toBe(0);
    const other = processes.getByRole('row', { name: `sleep 600 # ${held}` });
    await other.waitFor();
    // The host goes down: the target turns unreachable, its identity stays the same.
    sshd!.stop();
    const flaky = page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'flaky' });
    await poll(() => flaky.textContent()).toContain('unreachable');
    await poll(() => other.locator('.badge').first().textContent()).not.toBe('running');
    for (const size of windowSizes) {
      await page.setViewportSize(size);
      await page.screenshot({ path: join(root, `test-results/e2e-ssh-process-unreachable-${size.width}.png`) });
    }
    expect(await other.textContent()).not.toContain('retired');
    expect(await row.textContent()).not.toContain('retired');
    await sshd!.start();
    expect(errors).toEqual([]);
    await page.close();
  });

  it('a host whose key changed is not shown reachable, after the next look at its port either', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, windowSizes[0]);
    const row = page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'changed' });
    // Its port answers: the first look says so.
    await poll(() => row.textContent()).toContain('reachable');
    const p1 = pane(page, 1);
    await p1.getByRole('combobox', { name: 'Target' }).selectOption('changed');
    await waitForText(p1, /host key .* has CHANGED/, 30_000);
    await poll(() => row.textContent()).toMatch(/unreachable/);
    const checkedAt = async () => (await row.getByRole('note', { name: /^checked / }).getAttribute('title')) ?? '';
    const before = await checkedAt();
    // The health checks look at the port again within their minute: that look must not undo what the key said.
    await poll(checkedAt, 90_000).not.toBe(before);
    expect(await row.textContent()).toMatch(/unreachable/);
    expect(await row.textContent()).toContain('CHANGED');
    await page.screenshot({ path: join(root, 'test-results/e2e-ssh-key-changed.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
