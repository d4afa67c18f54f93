// The window is a person's only when opened from a person link: the same page without it says what it is and how to
// open the real one, and shows no terminal or control that would only be refused. In a real Chromium profile, the
// link's one-time code buys the page its cookie and is spent; nothing the browser keeps on disk holds the person's
// lasting secret (but, at most, its Cookies database, which the agent sandbox masks with the whole profile folder).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { describe, expect, it, vi } from 'vitest';
import { parsePersonLink, tradeCode } from '../scripts/cliHarness.js';
import { openUi, pane, root, useServeAndBrowser, waitForPrompt, type Served } from './harness.js';

vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

const app = useServeAndBrowser(undefined, { configExtra: 'approvals:\n  mode: ask\n  timeout: 600\n' });

describe('the person link', () => {
  it(
    'opened from it, the page is the window; without it, ' + 'the page says it is not yours (1400×900 and 900×600)',
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
      await poll(() => page.getByRole('navigation').or(page.locator('.xterm')).first().isVisible()).toBe(true);
      await page.close();
      expect(errors).toEqual([]);
      for (const viewport of [
        { width: 1400, height: 900 },
        { width: 900, height: 600 },
      ]) {
        // The same address and token, without the person's cookie.
        const plain = await app.browser.newPage({ viewport });
        await plain.goto(app.served.url);
        await poll(() => plain.getByRole('heading', { name: 'This page is not your window' }).isVisible()).toBe(true);
        expect(await plain.getByRole('alert').textContent()).toMatch(/switchboard open/);
        expect(await plain.locator('.xterm').count()).toBe(0);
        await plain.close();
      }
    },
  );
});

/** A new person link as a person gets one: `switchboard open` at a terminal of theirs, no desktop to open it on. */
async function newLink(served: Served): Promise<string> {
  const r = await served.personCli(['open', '--no-browser']);
  const link = /http:\/\/\S+#code=\S+/.exec(r.stdout)?.[0];
  if (r.code !== 0 || !link) throw new Error(`switchboard open gave no link: ${r.stdout}`);
  return link;
}

/** Every file under `dir` that holds `needle` (as bytes, or as UTF-16 as Chromium's storage keeps some strings). */
function filesHolding(dir: string, needle: string): string[] {
  const forms = [Buffer.from(needle, 'latin1'), Buffer.from(needle, 'utf16le')];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => join(f.parentPath, f.name))
    .filter((path) => {
      const bytes = readFileSync(path);
      return forms.some((form) => bytes.includes(form));
    })
    .map((path) => relative(dir, path));
}

function dialog(page: Page) {
  return page.getByRole('alertdialog', { name: 'Approve command' });
}

describe("a person link opened in Chromium's own profile", () => {
  it(
    'the code buys a session cookie and is spent; the page approves as the person known by the link, keeps working ' +
      'after a Core restart, and no file of the profile but Cookies holds the secret',
    async () => {
      const served = app.served;
      const profile = mkdtempSync(join(tmpdir(), 'sb-chromium-profile-'));
      const link = await newLink(served);
      const { code, url, token } = parsePersonLink(link)!;
      const origin = new URL(url).origin;
      // A real profile on disk, as a person's browser has one: History, Sessions, Local Storage, Cookies…
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: '/usr/bin/chromium',
        headless: true,
        args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync'],
        viewport: { width: 1400, height: 900 },
      });
      let secret = '';
      try {
        const page = context.pages()[0] ?? (await context.newPage());
        await page.goto(link);
        await pane(page, 1).waitFor();
        await waitForPrompt(pane(page, 1));
        // Neither the code nor the token stays in the address bar: the page is at its home.
        const home = new URL(page.url()).pathname;
        expect(page.url()).toMatch(new RegExp(`^${origin}/p/[\\w-]{22}/$`));
        const cookie = (await context.cookies(page.url())).find((c) => c.name.startsWith('switchboard_person_'));
        expect(cookie).toMatchObject({
          name: `switchboard_person_${new URL(url).port}`,
          httpOnly: true,
          sameSite: 'Strict',
          path: home.slice(0, -1),
          // A session cookie: gone with the browser's session.
          expires: -1,
        });
        secret = cookie!.value;
        // The page's script cannot read it.
        expect(await page.evaluate(() => document.cookie)).toBe('');
        expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).not.toContain(secret);

        // A server an agent runs on another port of the host (its dev server), opened by the person: a browser sends
        // a host's cookies to every port, but the person's goes only under the page's home, which it does not know.
        const heard: string[] = [];
        const agentServer = createServer((req, res) => {
          heard.push(`${req.url} ${req.headers.cookie ?? ''}`);
          res.writeHead(200, { 'content-type': 'text/html' }).end('<p>dev server</p>');
        });
        await new Promise<void>((resolve) => agentServer.listen(0, '127.0.0.1', resolve));
        try {
          const agentOrigin = `http://127.0.0.1:${(agentServer.address() as AddressInfo).port}`;
          // A control: a host's cookie for every path does reach the agent's port (so what follows means something).
          await context.addCookies([{ name: 'control', value: 'any-port', url: `${origin}/` }]);
          const devPage = await context.newPage();
          for (const path of ['/', '/ws', '/person', '/p/', `/s/${new URL(link).searchParams.get('token')}/`])
            await devPage.goto(`${agentOrigin}${path}`);
          await devPage.close();
          // (Chromium asks for /favicon.ico too.)
          expect(heard.length).toBeGreaterThanOrEqual(5);
          expect(heard.every((h) => h.includes('control=any-port'))).toBe(true);
          expect(heard.filter((h) => h.includes(secret))).toEqual([]);
        } finally {
          agentServer.close();
          await context.clearCookies({ name: 'control' });
        }

        // An agent's call held for approval, approved in this page.
        const call = served.cli([
          'call',
          'terminal',
          JSON.stringify({ command: 'rm -rf ./nothing-here', execution_target: 'alpha' }),
          '--json',
        ]);
        await dialog(page).getByRole('button', { name: 'Approve once' }).click();
        expect((await call).code).toBe(0);
        const decided = readFileSync(join(served.home, 'audit.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((l) => l.kind === 'approval')
          .at(-1);
        expect(decided).toMatchObject({ outcome: 'approve', by: 'ui', person: 'link', args: 'rm -rf ./nothing-here' });

        // The Core stops and starts again on the profile: the page finds it and is still the person's, no new link.
        await served.restart(() =>
          page.getByRole('alert').filter({ hasText: 'Lost the connection to the Core' }).waitFor(),
        );
        await page
          .getByRole('alert')
          .filter({ hasText: 'Lost the connection to the Core' })
          .waitFor({ state: 'detached', timeout: 30_000 });
        await page.keyboard.press('Control+Shift+D');
        await pane(page, 2).waitFor();
        await poll(() => page.locator('.pane .dot--pane-open').count()).toBe(2);
        // A reload at the cleaned address: the cookie still says who it is.
        await page.reload();
        await pane(page, 1).waitFor();
        expect(await page.getByRole('heading', { name: 'This page is not your window' }).count()).toBe(0);
      } finally {
        await context.close();
      }

      // The browser is closed: everything it keeps is on disk. Its history was kept (the scan reads a real one).
      expect(filesHolding(profile, new URL(url).host).length).toBeGreaterThan(0);
      // The lasting secret is in no file but, at most, the Cookies database (and its journal): ~/.config/chromium and
      // the other browsers' folders are masked inside the agent sandbox (core/sandbox/sandboxPolicy.ts).
      expect(filesHolding(profile, secret).filter((f) => !/(^|\/)Cookies(-journal)?$/.test(f))).toEqual([]);
      // The code may be in History and Sessions (the address the browser opened); there it is worth nothing.
      const holdingCode = filesHolding(profile, code);
      console.info(`e2e: the spent code is in ${holdingCode.join(', ') || 'no file'} of the Chromium profile`);
      const again = await tradeCode(url, token, code);
      expect([again.status, again.secret]).toEqual([403, undefined]);
      rmSync(profile, { recursive: true, force: true });
    },
  );

  it('a spent link opened again in another browser: one clear line, and the page only looks', async () => {
    const link = await newLink(app.served);
    const { url, code, token } = parsePersonLink(link)!;
    // Spent elsewhere first (a copy of the link opened, say, by whoever found it).
    expect((await tradeCode(url, token, code)).status).toBe(200);
    const page = await app.browser.newPage({ viewport: { width: 1400, height: 900 }, deviceScaleFactor: 1 });
    await page.goto(link);
    const alert = page.getByRole('alert');
    await alert.getByRole('heading', { name: 'This page is not your window' }).waitFor();
    expect(await alert.locator('.not-yours__problem').textContent()).toBe(
      'This link was already used or has expired: run switchboard open in a terminal of your own for a new one.',
    );
    expect(await alert.locator('.not-yours__problem code').textContent()).toBe('switchboard open');
    // The code and the token are out of the address bar here too.
    expect(page.url()).toBe(`${new URL(url).origin}/`);
    expect(await page.locator('.xterm').count()).toBe(0);
    await page.screenshot({ path: join(root, 'test-results/e2e-person-link-spent.png') });
    await page.setViewportSize({ width: 900, height: 600 });
    await page.screenshot({ path: join(root, 'test-results/e2e-person-link-spent-900.png') });
    await page.close();
  });
});
