// Plugin backends in the window, through `switchboard serve` and Chromium: the bwrap example installed and enabled
// from the CLI while the Add-target form is open, a target added through the form, a pane on it, a CLI tool call on
// it; and a backend without streams (http_sandbox) offers no pane but runs commands.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useServeAndBrowser, marker, openUi, pane, root, run, waitForText } from './harness.js';
import { startServer } from '../examples/plugins/http_sandbox/server.mjs';

// The sandbox service's token, in a variable the Core is started with; the plugin gets it through its target's
// token_env (the plugin host never sees credential-named variables otherwise).
const TOKEN_VAR = 'SB_E2E_SANDBOX_TOKEN';
const token = `e2e-${process.pid}`;
process.env[TOKEN_VAR] = token;
let sandboxServer: Awaited<ReturnType<typeof startServer>>;
beforeAll(async () => {
  sandboxServer = await startServer({ token });
});
afterAll(async () => {
  await sandboxServer?.close();
});

const app = useServeAndBrowser();
const shots = join(root, 'test-results');

async function cliOk(args: string[]): Promise<string> {
  const r = await app.served.cli(args);
  expect(r.stderr, `switchboard ${args.join(' ')}`).toBe('');
  expect(r.code).toBe(0);
  return r.stdout;
}

/** A person's command (plugins are a person's to install and enable), at a terminal of its own. */
async function personOk(args: string[]): Promise<string> {
  const r = await app.served.personCli(args);
  expect(r.code, `switchboard ${args.join(' ')}: ${r.stdout}`).toBe(0);
  return r.stdout;
}

async function options(page: Page, label: string): Promise<string[]> {
  return page.getByRole('dialog', { name: 'Add target' }).getByLabel(label).locator('option').allTextContents();
}

describe('plugin backends in the window', () => {
  it('bwrap: enabled while the form is open, added through it, a pane on it and a CLI tool call on it', async () => {
    mkdirSync(shots, { recursive: true });
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
    await page.getByRole('button', { name: 'Add target' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add target' });
    await dialog.waitFor();
    expect(await options(page, 'Backend')).not.toContain('Bubblewrap sandbox');

    await personOk(['plugins', 'install', join(root, 'examples/plugins/bwrap'), '--yes']);
    await personOk(['plugins', 'enable', 'bwrap', '--yes']);
    // backends.changed reaches the open form: the new backend is offered by its display name.
    await expect.poll(() => options(page, 'Backend'), { timeout: 30_000 }).toContain('Bubblewrap sandbox');
    await dialog.getByLabel('Backend').selectOption({ label: 'Bubblewrap sandbox' });
    await dialog.getByLabel('Read-write folders').waitFor();
    await dialog.getByLabel('Name').fill('sbx');
    await page.screenshot({ path: join(shots, 'e2e-plugins-add-bwrap-1400.png') });
    await page.setViewportSize({ width: 900, height: 600 });
    await page.screenshot({ path: join(shots, 'e2e-plugins-add-bwrap-900.png') });
    await page.setViewportSize({ width: 1400, height: 900 });
    await dialog.getByRole('button', { name: 'Add target' }).click();
    await dialog.waitFor({ state: 'detached' });

    const sidebar = page.getByRole('list', { name: 'Targets' });
    const row = sidebar.getByRole('listitem', { name: 'sbx' });
    await row.waitFor();
    await expect.poll(() => row.textContent()).toContain('Bubblewrap sandbox');
    expect(await row.textContent()).toContain('runtime');

    // A pane on it: a shell inside the sandbox, in its workspace.
    await row.hover();
    await row.getByRole('button', { name: 'New terminal on sbx' }).click();
    const p = pane(page, 1);
    await expect.poll(() => p.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('sbx');
    await waitForText(p, /[#$] *$/m, 30_000);
    const m = marker('pane');
    await run(
      p,
      `echo ${m} > /workspace/from-pane; cat /workspace/from-pane; pwd; touch /usr/x 2>&1 | grep -c Read-only`,
    );
    const shown = await waitForText(p, /^1$/m, 30_000);
    expect(shown).toMatch(new RegExp(`^${m}$`, 'm'));
    expect(shown).toMatch(/^\/workspace$/m);
    await page.screenshot({ path: join(shots, 'e2e-plugins-bwrap-pane-1400.png') });
    await page.setViewportSize({ width: 900, height: 600 });
    await page.screenshot({ path: join(shots, 'e2e-plugins-bwrap-pane-900.png') });

    // The same target from the CLI: the agent's terminal tool sees what the pane wrote.
    const out = JSON.parse(
      await cliOk([
        'call',
        'terminal',
        JSON.stringify({ command: 'cat /workspace/from-pane; echo "$HOME"', execution_target: 'sbx' }),
        '--json',
      ]),
    );
    expect(out).toMatchObject({ exit_code: 0, output: `${m}\n/workspace\n`, execution_target: 'sbx' });
    expect(errors).toEqual([]);
    await page.close();
  });

  it(
    'http_sandbox: no pane is offered ("no interactive shell on ' + 'this backend"), commands run from the CLI',
    async () => {
      await personOk(['plugins', 'install', join(root, 'examples/plugins/http_sandbox'), '--yes']);
      await personOk(['plugins', 'enable', 'http_sandbox', '--yes']);
      // A runtime target: token_env is named like a secret, but the plugin declared it a secret reference (a variable's
      // name), so the registry takes it; a token's value in its place is still refused.
      const refused = await app.served.cli([
        'targets',
        'register',
        'leaky',
        '--backend',
        'http_sandbox',
        '--set',
        `api_url=${sandboxServer.url}`,
        '--set',
        'token_env=ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      ]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/would store a secret/);
      expect(refused.stderr).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
      await cliOk([
        'targets',
        'register',
        'cloud',
        '--backend',
        'http_sandbox',
        '--set',
        `api_url=${sandboxServer.url}`,
        '--set',
        `token_env=${TOKEN_VAR}`,
      ]);
      const { page, errors } = await openUi(app.browser, app.served.url, { width: 1400, height: 900 });
      const row = page.getByRole('list', { name: 'Targets' }).getByRole('listitem', { name: 'cloud' });
      await row.waitFor();
      await expect.poll(() => row.textContent()).toContain('HTTP sandbox');
      await row.hover();
      expect(
        await row.getByRole('button', { name: 'New terminal on cloud' }).count(),
        'no "new terminal" on a backend without streams',
      ).toBe(0);
      await row.getByRole('note', { name: 'cloud: no interactive shell on this backend' }).waitFor();
      const option = pane(page, 1).getByRole('combobox', { name: 'Target' }).locator('option[value="cloud"]');
      expect(await option.textContent()).toBe('cloud — no interactive shell on this backend');
      expect(await option.isDisabled()).toBe(true);
      await page.screenshot({ path: join(shots, 'e2e-plugins-no-shell-1400.png') });

      const out = JSON.parse(
        await cliOk([
          'call',
          'terminal',
          JSON.stringify({ command: 'echo from-the-service; pwd', execution_target: 'cloud' }),
          '--json',
        ]),
      );
      expect(out).toMatchObject({ exit_code: 0, execution_target: 'cloud' });
      expect(out.output).toContain('from-the-service\n');
      expect(errors).toEqual([]);
      await page.close();
    },
  );
});
