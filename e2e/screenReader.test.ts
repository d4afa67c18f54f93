// What a person who uses a screen reader or only the keyboard gets from the window, through `serve` in Chromium: the
// approval dialog as Chromium exposes it to assistive technology (role, name, description), answered by keys alone;
// the live region saying each new request, dead target and finished process once; xterm's screen reader mode; a
// visible focus ring on every control; and less motion when the system asks for it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Page } from 'playwright-core';
import { freePort } from '../scripts/privateSshd.js';
import { marker, openUi, pane, root, run, useServeAndBrowser, waitForPrompt } from './harness.js';
import { runAxe, serious } from './axe.js';
import { ARM_MS } from '../src/renderer/typingQuiet.js';

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000 });

const app = useServeAndBrowser(undefined, { configExtra: 'approvals:\n  mode: ask\n  timeout: 600\n' });

function agentCall(command: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return app.served.cli(['call', 'terminal', JSON.stringify({ command, execution_target: 'alpha' }), '--json']);
}

/** Role, name and description of the nodes Chromium's accessibility tree gives assistive technology. */
async function axNodes(page: Page): Promise<Array<{ role: string; name: string; description: string }>> {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as {
    nodes: Array<{ role?: { value?: string }; name?: { value?: string }; description?: { value?: string } }>;
  };
  await cdp.detach();
  return nodes.map((n) => ({
    role: n.role?.value ?? '',
    name: n.name?.value ?? '',
    description: n.description?.value ?? '',
  }));
}

/** The lines the window's polite live region has said. */
function announcements(page: Page): Promise<string[]> {
  return page.getByRole('log', { name: 'Announcements' }).locator('p').allTextContents();
}

const count = (lines: string[], needle: string): number => lines.filter((l) => l.includes(needle)).length;

/**
 * Focuses every visible focusable control as the keyboard would (focus-visible) and returns those that show no ring:
 * no outline of at least 2 px, no box-shadow ring, no drawn line (the splitters draw theirs with ::after).
 */
function controlsWithoutRing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const selector = [
      'button:not([disabled])',
      'input:not([disabled])',
      'select:not([disabled])',
      'textarea:not([disabled])',
      'a[href]',
      '[tabindex]:not([tabindex="-1"])',
    ].join(', ');
    const missing: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>(selector))) {
      // xterm's hidden input: the focused pane shows itself by its header and cursor.
      if (el.classList.contains('xterm-helper-textarea') || el.getClientRects().length === 0) continue;
      if (el.closest('[inert]')) continue;
      el.focus({ focusVisible: true } as FocusOptions);
      const s = getComputedStyle(el);
      const after = getComputedStyle(el, '::after');
      const ring =
        (s.outlineStyle !== 'none' && Number.parseFloat(s.outlineWidth) >= 2) ||
        s.boxShadow !== 'none' ||
        (after.content !== 'none' && after.backgroundColor !== 'rgba(0, 0, 0, 0)');
      if (!ring || document.activeElement !== el) {
        const name = el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30) ?? '';
        missing.push(`${el.tagName.toLowerCase()}.${el.className} "${name}"`);
      }
    }
    return missing;
  });
}

describe('approving with a screen reader and the keyboard', () => {
  it('says the request politely; an alertdialog named by its title, described by its command, by keys', async () => {
    const { page, errors } = await openUi(
      app.browser,
      app.served.url,
      { width: 1400, height: 900 },
      { bypassCSP: true },
    );
    const p1 = pane(page, 1);

    // Screen reader mode, from Settings: xterm keeps an accessibility tree of the rows.
    await page.keyboard.press('Control+Comma');
    const settings = page.getByRole('dialog', { name: 'Settings' });
    await settings.getByRole('checkbox', { name: /^Screen reader mode/ }).check();
    await page.keyboard.press('Escape');
    await settings.waitFor({ state: 'detached' });
    const tree = p1.locator('.xterm-accessibility-tree');
    await tree.waitFor();
    const m = marker('sr');
    await run(p1, `echo ${m}`);
    await poll(async () => (await tree.getByRole('listitem').allTextContents()).some((t) => t.includes(m))).toBe(true);
    await waitForPrompt(p1);
    // The accessibility tree xterm adds passes axe too. (Before the request: the agent's call waits at most 30 s.)
    expect(serious(await runAxe(page))).toEqual([]);

    // The request arrives while the terminal has the keyboard.
    const dir = join(app.served.dirs.alpha, 'scratch-sr');
    mkdirSync(join(dir, 'deep'), { recursive: true });
    const command = 'rm -rf scratch-sr';
    const held = agentCall(command);
    const dialog = page.getByRole('alertdialog', { name: 'Approve command' });
    await dialog.waitFor();
    await poll(async () => count(await announcements(page), command)).toBe(1);
    expect((await announcements(page)).find((l) => l.includes(command))).toBe(
      `Approval needed: An agent (cli) wants to run ${command} on alpha.`,
    );

    // Once it holds the keyboard: modal, Deny focused, and Chromium names it by its title and describes it by
    // who asks, where, and the command.
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    const exposed = (await axNodes(page)).find((n) => n.role === 'alertdialog');
    expect(exposed?.name).toBe('Approve command');
    expect(exposed?.description).toContain('An agent (cli) wants to run this command on alpha');
    expect(exposed?.description).toContain(command);

    // Every control of the dialog shows where the keyboard is, Tab by Tab, and Tab stays inside the dialog.
    const seen: string[] = [];
    for (let i = 0; i < 12; i++) {
      const at = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const s = getComputedStyle(el);
        return {
          what: el.getAttribute('aria-label') ?? el.textContent ?? '',
          inside: el.closest('[role="alertdialog"]') !== null,
          ring: (s.outlineStyle !== 'none' && Number.parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== 'none',
        };
      });
      expect(at.inside, at.what).toBe(true);
      expect(at.ring, `no focus ring on ${at.what}`).toBe(true);
      seen.push(at.what);
      if (at.what === 'Approve once') break;
      await page.keyboard.press('Tab');
    }
    expect(seen[0]).toBe('Deny');
    expect(seen.at(-1)).toBe('Approve once');
    // Enter within ARM_MS of the dialog taking the keyboard is a key meant for the terminal, and answers nothing.
    await page.waitForTimeout(ARM_MS);
    await page.keyboard.press('Enter');
    const ran = await held;
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(dir)).toBe(false);
    await dialog.waitFor({ state: 'detached' });

    // A second request is said once; the first is not said again. Escape denies it.
    mkdirSync(dir, { recursive: true });
    const again = agentCall(`${command} # again`);
    await dialog.waitFor();
    await poll(async () => count(await announcements(page), `${command} # again`)).toBe(1);
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Deny');
    await page.keyboard.press('Escape');
    expect((await again).code).not.toBe(0);
    expect(existsSync(dir)).toBe(true);
    expect(count(await announcements(page), `wants to run ${command} on alpha`)).toBe(1);
    await page.screenshot({ path: join(root, 'test-results/e2e-screen-reader-mode.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('says a finished background process and a target turning unreachable, once each', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const m = marker('bg');
    const started = await app.served.cli([
      'call',
      'terminal',
      JSON.stringify({ command: `sleep 1; echo ${m}`, background: true, execution_target: 'alpha' }),
      '--json',
    ]);
    expect(started.code, started.stderr).toBe(0);
    await poll(async () => count(await announcements(page), `sleep 1; echo ${m}`)).toBe(1);
    expect((await announcements(page)).find((l) => l.includes(m))).toBe(
      `Background process on alpha exited with 0: sleep 1; echo ${m}.`,
    );

    const key = join(app.served.home, '..', 'id-sr');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    const port = String(await freePort());
    const args = ['--host', '127.0.0.1', '--port', port, '--user', 'nobody', '--key', key];
    expect((await app.served.cli(['targets', 'register', 'dead', '--backend', 'ssh', ...args])).code).toBe(0);
    await poll(async () => count(await announcements(page), 'Target dead is unreachable')).toBe(1);
    // Later probes that find it down again, and the process list changing, say nothing more.
    await page
      .getByRole('listitem', { name: 'dead' })
      .getByRole('note', { name: /^checked / })
      .waitFor();
    await new Promise((r) => setTimeout(r, 3000));
    const lines = await announcements(page);
    expect(count(lines, 'Target dead is unreachable')).toBe(1);
    expect(count(lines, m)).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('focus and motion', () => {
  it('shows a focus ring on every control of the window and of Settings, in each theme', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await app.served.cli([
      'call',
      'terminal',
      JSON.stringify({ command: 'sleep 120', background: true, execution_target: 'alpha' }),
      '--json',
    ]);
    await page.getByRole('table', { name: 'Processes' }).getByRole('row', { name: 'sleep 120' }).click();
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await controlsWithoutRing(page)).toEqual([]);
      await page.keyboard.press('Control+Comma');
      await page.getByRole('dialog', { name: 'Settings' }).waitFor();
      expect(await controlsWithoutRing(page)).toEqual([]);
      await page.keyboard.press('Escape');
    }
    expect(errors).toEqual([]);
    await page.close();
  });

  it('honours prefers-reduced-motion: no entrance animations, no pulsing dots, no blinking cursor', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    await p1.locator('.xterm').click();
    await poll(() => p1.locator('.xterm-cursor-blink').count()).toBeGreaterThan(0);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await poll(() => p1.locator('.xterm-cursor-blink').count()).toBe(0);
    await page.keyboard.press('Control+Comma');
    const modal = page.getByRole('dialog', { name: 'Settings' });
    await modal.waitFor();
    const animation = await modal.evaluate((el) => {
      const s = getComputedStyle(el);
      return { duration: s.animationDuration, transition: s.transitionDuration };
    });
    expect(Number.parseFloat(animation.duration)).toBeLessThanOrEqual(0.001);
    await page.keyboard.press('Escape');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await poll(() => p1.locator('.xterm-cursor-blink').count()).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
