// Accessibility of every screen of the window, measured by axe-core inside Chromium through `serve`: the window with
// split panes, Processes and Activity with rows, each dialog, the palette, the menus, broadcast input, the targets
// grouped, a colour scheme's preview, an SSH pane reconnecting, in the light, dark and
// high-contrast themes at 1400×900 and 900×600. Any serious or critical finding fails, with its rule and nodes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { loadSshEnv } from '../scripts/testEnv.js';
import { freePort, PrivateSshd } from '../scripts/privateSshd.js';
import { openUi, pane, root, run, useServeAndBrowser, waitForPrompt, type Served } from './harness.js';
import { report, runAxe, serious } from './axe.js';

vi.setConfig({ testTimeout: 400_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000 });
const ssh = loadSshEnv();

/** Targets and work for the screens to show: a runtime target, another program's, a dead one, processes. */
async function prepare(served: Served): Promise<void> {
  const cli = async (args: string[]): Promise<void> => {
    const r = await served.cli(args);
    if (r.code !== 0) throw new Error(`switchboard ${args.join(' ')}: ${r.stderr}`);
  };
  await cli(['targets', 'register', 'rt', '--backend', 'local', '--cwd', served.dirs.beta]);
  await cli(['targets', 'register', 'old', '--backend', 'local', '--cwd', served.dirs.beta]);
  await cli(['targets', 'drain', 'old']);
  const owned = ['--provider', 'sandboxd', '--owner-id', 'job-1'];
  await cli(['targets', 'register', 'ext', '--backend', 'local', '--cwd', served.dirs.beta, ...owned]);
  // Enough targets for the sidebar's fleet tools (filter, group, sort) to show.
  for (const n of [1, 2, 3, 4, 5]) {
    const job = ['--provider', 'sandboxd', '--owner-id', 'job-2'];
    await cli(['targets', 'register', `w${n}`, '--backend', 'local', '--cwd', served.dirs.beta, ...job]);
  }
  const key = join(served.home, '..', 'id-dead');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  const port = String(await freePort());
  await cli(['targets', 'register', 'down', '--backend', 'ssh', '--host', '127.0.0.1', '--port', port, '--key', key]);
  const bg = (command: string) => JSON.stringify({ command, background: true, execution_target: 'alpha' });
  await cli(['call', 'terminal', bg('sleep 900'), '--json']);
  await cli(['call', 'terminal', bg('echo finished'), '--json']);
  await cli(['call', 'terminal', JSON.stringify({ command: 'ls', execution_target: 'alpha' }), '--json']);
}

const app = useServeAndBrowser(prepare, { configExtra: 'approvals:\n  mode: ask\n  timeout: 600\n' });

type Theme = 'dark' | 'light' | 'high-contrast';
/** axe's rules for headings and landmarks (moderate): what a screen reader's "next heading / region" keys rely on. */
const structure = new Set([
  'page-has-heading-one',
  'region',
  'landmark-one-main',
  'landmark-no-duplicate-main',
  'landmark-unique',
  'landmark-complementary-is-top-level',
  'landmark-main-is-top-level',
  'heading-order',
]);
const sizes = [
  { width: 1400, height: 900 },
  { width: 900, height: 600 },
];

/** Opens the window in a theme: light and dark follow the system; high contrast follows `prefers-contrast: more`. */
async function open(theme: Theme, viewport: { width: number; height: number }): Promise<Page> {
  const { page } = await openUi(app.browser, app.served.url, viewport, { bypassCSP: true });
  await page.emulateMedia(
    theme === 'high-contrast' ? { colorScheme: 'dark', contrast: 'more' } : { colorScheme: theme, contrast: null },
  );
  await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
  return page;
}

/**
 * A check of the page's current screen: axe's serious and critical findings (and, on the window itself, its heading
 * and landmark findings) go into `found`, tagged; a screenshot of each screen goes to test-results/.
 */
function checker(page: Page, theme: Theme, viewport: { width: number; height: number }, found: string[]) {
  const tag = `${theme} ${viewport.width}×${viewport.height}`;
  return async (screen: string): Promise<void> => {
    // Past the dialogs' 140 ms entrance: axe measures contrast on what is drawn.
    await page.waitForTimeout(250);
    const file = `a11y-${theme}-${viewport.width}-${screen.replace(/\W+/g, '-')}.png`;
    await page.screenshot({ path: join(root, 'test-results', file) });
    const violations = await runAxe(page);
    for (const v of serious(violations)) found.push(`[${tag}] ${screen}: ${v}`);
    // The window's structure too (moderate): one h1, and every part in a landmark (sidebar, panes, Processes, …).
    if (screen === 'window')
      for (const v of violations.filter((v) => structure.has(v.id))) found.push(`[${tag}] ${screen}: ${report(v)}`);
  };
}

/** Runs every screen of the window through axe; returns what it found, by screen. */
async function sweep(theme: Theme, viewport: { width: number; height: number }): Promise<string[]> {
  const page = await open(theme, viewport);
  const found: string[] = [];
  const check = checker(page, theme, viewport, found);
  const dismiss = async (role: 'dialog' | 'alertdialog' | 'menu', name: string): Promise<void> => {
    await page.keyboard.press('Escape');
    await page.getByRole(role, { name }).waitFor({ state: 'detached' });
  };

  // The window: two panes, a selected process with its output, Activity with rows, the target list with every state.
  const p1 = pane(page, 1);
  await p1.locator('.xterm').click();
  await page.keyboard.press('Control+Shift+D');
  await waitForPrompt(pane(page, 2));
  const processes = page.getByRole('table', { name: 'Processes' });
  await processes.getByRole('row', { name: 'sleep 900' }).click();
  await page.getByLabel('Process output').waitFor();
  await page.getByRole('table', { name: 'Activity feed' }).getByRole('row').nth(1).waitFor();
  await poll(() => page.getByRole('listitem', { name: 'down' }).getAttribute('class')).toContain('unreachable');
  await check('window');
  await page.getByRole('table', { name: 'Activity feed' }).getByRole('row').nth(1).click();
  await page.getByRole('region', { name: /^Details of / }).waitFor();
  await check('activity details');
  await page.getByRole('button', { name: 'Close details' }).click();

  await p1.locator('.xterm').click({ button: 'right' });
  await page.getByRole('menu', { name: 'Terminal' }).waitFor();
  await check('context menu');
  await dismiss('menu', 'Terminal');
  await p1.locator('.xterm').click();
  await page.keyboard.press('Control+Shift+F');
  await page.getByRole('search', { name: 'Find in terminal' }).waitFor();
  await check('find bar');
  await page.keyboard.press('Escape');

  // Broadcast input to the two panes: the bar over them and each pane's mark.
  await p1.locator('.xterm').click();
  await page.keyboard.press('Control+Shift+P');
  await page.getByRole('combobox', { name: 'Type a command' }).fill('selected panes');
  await page.keyboard.press('Enter');
  const broadcast = page.getByRole('status', { name: 'Broadcast input', exact: true });
  await broadcast.waitFor();
  await pane(page, 2)
    .locator('.pane__header')
    .click({ modifiers: ['Control'], position: { x: 4, y: 12 } });
  await poll(() => broadcast.textContent()).toContain('Broadcasting input to 2 panes');
  await check('broadcast input');
  await broadcast.getByRole('button', { name: 'Stop broadcasting' }).click();
  await broadcast.waitFor({ state: 'detached' });

  await page.getByRole('tab').first().click({ button: 'right' });
  await page.getByRole('menu', { name: 'Tab' }).waitFor();
  await check('tab menu');
  await dismiss('menu', 'Tab');

  await page.keyboard.press('Control+Shift+P');
  await page.getByRole('dialog', { name: 'Commands' }).waitFor();
  await page.keyboard.type('plug');
  await check('palette');
  await page.keyboard.press('Enter');
  await page.getByRole('dialog', { name: 'Plugins' }).waitFor();
  await check('plugins');
  await dismiss('dialog', 'Plugins');

  await page.keyboard.press('Control+Comma');
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.waitFor();
  await check('settings');
  // A colour scheme chosen: its preview (the profile's settings are shared, so the window's own colours come back).
  const schemes = settings.getByRole('combobox', { name: 'Terminal colours' });
  await schemes.selectOption({ label: 'Solarized Light' });
  await settings.getByRole('img', { name: 'Preview of Solarized Light' }).waitFor();
  await check('settings with a scheme');
  await schemes.selectOption('window');
  await settings.getByRole('button', { name: 'Approval rules…' }).click();
  await page.getByRole('dialog', { name: 'Approval rules' }).waitFor();
  await check('approval rules');
  await dismiss('dialog', 'Approval rules');
  await page.keyboard.press('Control+Comma');
  await settings.getByRole('button', { name: 'Keys…' }).click();
  await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
  await check('keys');
  await dismiss('dialog', 'Keyboard shortcuts');

  const sidebar = page.getByRole('complementary', { name: 'Sidebar' });
  // The fleet tools: the targets grouped by owner, filtered.
  await page.getByRole('combobox', { name: 'Group targets' }).selectOption('owner');
  await page
    .getByRole('list', { name: 'Targets' })
    .getByRole('button', { name: /^sandboxd\/job-1 · / })
    .waitFor();
  await page.getByRole('searchbox', { name: 'Filter targets' }).fill('e');
  await check('targets grouped and filtered');
  await page.getByRole('searchbox', { name: 'Filter targets' }).fill('');
  await page.getByRole('combobox', { name: 'Group targets' }).selectOption('none');
  await sidebar.getByRole('button', { name: 'Add target' }).click();
  await page.getByRole('dialog', { name: 'Add target' }).waitFor();
  await check('add target');
  await dismiss('dialog', 'Add target');
  await sidebar.getByRole('listitem', { name: 'rt' }).hover();
  await sidebar.getByRole('button', { name: 'Edit rt' }).click();
  await page.getByRole('dialog', { name: 'Edit target rt' }).waitFor();
  await check('edit target');
  await dismiss('dialog', 'Edit target rt');
  await sidebar.getByRole('listitem', { name: 'ext' }).hover();
  await sidebar.getByRole('button', { name: 'Remove ext' }).click();
  await page.getByRole('dialog', { name: 'Remove target ext?' }).waitFor();
  await check('confirmation');
  await dismiss('dialog', 'Remove target ext?');

  // An agent's dangerous command, once the dialog has the keyboard.
  const scratch = join(app.served.dirs.alpha, `scratch-${theme}-${viewport.width}`);
  mkdirSync(scratch, { recursive: true });
  const command = `rm -rf ${scratch} && curl -u admin:Hunter2Secret https://example.invalid/`;
  const held = app.served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: 'alpha' }), '--json']);
  const approve = page.getByRole('alertdialog', { name: 'Approve command' });
  await approve.waitFor();
  await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
  await check('approve command');
  await approve.getByRole('button', { name: 'Deny' }).click();
  expect((await held).code).not.toBe(0);

  if (ssh) {
    const args = ['--host', ssh.host, '--port', String(ssh.port), '--user', ssh.user, '--key', ssh.key];
    const name = `remote${viewport.width}${theme.length}`;
    expect((await app.served.cli(['targets', 'register', name, '--backend', 'ssh', ...args])).code).toBe(0);
    const call = JSON.stringify({ command: 'pwd', execution_target: name });
    const asking = app.served.cli(['call', 'terminal', call, '--json']);
    const hostKey = page.getByRole('alertdialog', { name: 'Trust host key?' });
    await hostKey.waitFor({ timeout: 20_000 });
    await check('host key');
    await hostKey.getByRole('button', { name: 'Reject' }).click();
    expect((await asking).code).not.toBe(0);
  }

  await sidebar.getByRole('button', { name: 'Collapse sidebar' }).click();
  await check('collapsed sidebar');
  await sidebar.getByRole('button', { name: 'Expand sidebar' }).click();
  await page.close();
  return found;
}

/**
 * The states a window passes through beside its screens: nothing matches, a form with problems, two requests queued
 * (the first waiting for a pause in typing, then with its secret shown), a broken config, an exited shell, a page
 * without the person link, and the Core gone.
 */
async function states(theme: Theme): Promise<string[]> {
  const viewport = sizes[0]!;
  const page = await open(theme, viewport);
  const found: string[] = [];
  const check = checker(page, theme, viewport, found);
  const p1 = pane(page, 1);

  await page.keyboard.press('Control+Shift+P');
  await page.keyboard.type('no such command');
  await page.getByText('No command matches.').waitFor();
  await check('palette without a match');
  await page.keyboard.press('Escape');
  await p1.locator('.xterm').click();
  await page.keyboard.press('Control+Shift+F');
  await page.keyboard.type('no-such-text-here');
  await page.getByText('No results').waitFor();
  await check('find without a result');
  await page.keyboard.press('Escape');

  await page.getByRole('button', { name: 'Add target' }).click();
  const form = page.getByRole('dialog', { name: 'Add target' });
  await form.getByLabel('Name').fill(`box-${theme}`);
  await form.getByLabel('Backend').selectOption('docker');
  await form.getByLabel('Image').fill('debian:bookworm');
  await form.locator('summary', { hasText: 'More options' }).click();
  await form.getByLabel('CPUs').fill('two');
  await form.getByRole('button', { name: 'Add target' }).click();
  await form.getByText('CPUs must be a number, like 1.5').waitFor();
  await check('add target with problems');
  await page.keyboard.press('Escape');

  // A request arrives while the person types; a second one queues behind it.
  await p1.locator('.xterm').click();
  let typing = true;
  const typed = (async () => {
    while (typing) await page.keyboard.type('x', { delay: 60 });
  })();
  const secret = 'Hunter2Secret';
  const call = (command: string) =>
    app.served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: 'alpha' }), '--json']);
  const first = call(`rm -rf gone-${theme} && curl -u admin:${secret} https://example.invalid/`);
  const dialog = page.getByRole('alertdialog', { name: 'Approve command' });
  await dialog.getByRole('status').waitFor();
  const second = call(`rm -rf gone-too-${theme}`);
  await dialog.getByRole('note', { name: 'Request 1 of 2' }).waitFor();
  await check('approve, waiting for a pause, two queued');
  typing = false;
  await typed;
  await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
  await dialog.getByRole('button', { name: 'Show secrets' }).click();
  await check('approve, secret shown');
  await page.keyboard.press('Escape');
  expect((await first).code).not.toBe(0);
  await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
  await page.keyboard.press('Escape');
  expect((await second).code).not.toBe(0);
  // The CLI can hear the answer before the window hears the queue emptied: the keys below are for the terminal, which
  // gets the keyboard back once the dialog has gone.
  await dialog.waitFor({ state: 'detached' });
  await page.keyboard.press('Control+C');

  const configPath = join(app.served.home, 'config.yaml');
  const config = readFileSync(configPath, 'utf8');
  writeFileSync(configPath, config.replace('  targets:\n', '  targets:\n    broken: { backend: nosuch }\n'));
  await page.getByRole('alert', { name: 'Configuration problems' }).waitFor({ timeout: 20_000 });
  await check('configuration problems');
  writeFileSync(configPath, config);
  await page.getByRole('alert', { name: 'Configuration problems' }).waitFor({ state: 'detached', timeout: 20_000 });

  await run(p1, 'exit');
  await p1.getByText('exited', { exact: true }).waitFor();
  await check('exited shell');

  const stranger = await app.browser.newPage({ viewport, bypassCSP: true });
  await stranger.emulateMedia(
    theme === 'high-contrast' ? { colorScheme: 'dark', contrast: 'more' } : { colorScheme: theme },
  );
  await stranger.goto(app.served.url.replace(/#.*$/, ''));
  await stranger.getByRole('heading', { name: 'This page is not your window' }).waitFor();
  for (const v of serious(await runAxe(stranger))) found.push(`[${theme}] not your window: ${v}`);
  await stranger.close();

  await app.served.restart(async () => {
    await page.getByRole('alert').filter({ hasText: 'Lost the connection to the Core' }).waitFor();
    await check('disconnected');
  });
  await page.close();
  return found;
}

describe('axe finds nothing serious or critical', () => {
  for (const theme of ['dark', 'light', 'high-contrast'] as const) {
    for (const viewport of sizes) {
      it(`on every screen in the ${theme} theme at ${viewport.width}×${viewport.height}`, async () => {
        const found = await sweep(theme, viewport);
        expect(found.length, `axe found:\n${found.join('\n')}`).toBe(0);
      });
    }
  }
  // An SSH pane whose daemon went away: the reconnect bar's countdown over it, with its error, in each theme.
  it.skipIf(!ssh)('over an SSH pane reconnecting, in each theme', async () => {
    const port = await freePort();
    const sshd = PrivateSshd.ownConfig(ssh!.user, port, { sftp: 'internal-sftp' });
    await sshd.start();
    try {
      const args = ['--host', '127.0.0.1', '--port', String(port), '--user', ssh!.user, '--key', ssh!.key];
      expect((await app.served.cli(['targets', 'register', 'flaky', '--backend', 'ssh', ...args])).code).toBe(0);
      const viewport = sizes[0]!;
      const page = await open('dark', viewport);
      const p1 = pane(page, 1);
      await p1.getByRole('combobox', { name: 'Target' }).selectOption('flaky');
      const trust = page.getByRole('alertdialog', { name: 'Trust host key?' });
      await trust.waitFor({ timeout: 20_000 });
      await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Reject');
      await trust.getByRole('button', { name: 'Trust once' }).click();
      await waitForPrompt(p1);
      sshd.stop();
      const bar = p1.getByRole('status', { name: 'Reconnecting' });
      await bar.waitFor({ timeout: 20_000 });
      const found: string[] = [];
      for (const theme of ['dark', 'light', 'high-contrast'] as const) {
        await page.emulateMedia(
          theme === 'high-contrast'
            ? { colorScheme: 'dark', contrast: 'more' }
            : { colorScheme: theme, contrast: null },
        );
        await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe(theme);
        await checker(page, theme, viewport, found)('ssh pane reconnecting');
      }
      await bar.getByRole('button', { name: 'Cancel' }).click();
      await bar.waitFor({ state: 'detached' });
      await page.close();
      expect(found.length, `axe found:\n${found.join('\n')}`).toBe(0);
    } finally {
      sshd.dispose();
      // The closed page's last layout (a pane on "flaky") can be saved after the next page's harness cleared it: with
      // the target gone, that pane opens on the preferred target instead of on a daemon that is no more.
      await app.served.cli(['targets', 'remove', 'flaky']);
    }
  });
  // Last: it restarts the Core.
  it('in the states the window passes through, in each theme', async () => {
    const found: string[] = [];
    for (const theme of ['dark', 'light', 'high-contrast'] as const) found.push(...(await states(theme)));
    expect(found.length, `axe found:\n${found.join('\n')}`).toBe(0);
  });
});
