// What a person does in the window (kill a process, add and remove a target) is in Activity and audit.jsonl with
// client ui; Activity rows open to show their details; Processes "All targets" keeps a removed target's process.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { marker, openUi, root, useServeAndBrowser } from './harness.js';

const app = useServeAndBrowser();
vi.setConfig({ testTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000 });

interface AuditLine {
  kind: string;
  client: string;
  tool?: string;
  execution_target?: string;
  outcome: string;
  args?: string;
}
function audit(): AuditLine[] {
  try {
    return readFileSync(join(app.served.home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as AuditLine);
  } catch {
    return [];
  }
}

async function background(command: string, target: string): Promise<string> {
  const r = await app.served.cli([
    'call',
    'terminal',
    JSON.stringify({ command, background: true, execution_target: target }),
    '--json',
  ]);
  expect(r.stderr).toBe('');
  return (JSON.parse(r.stdout) as { session_id: string }).session_id;
}

describe('window actions', () => {
  it(
    'a kill, an added and a removed target are in Activity (rows open) and audit.jsonl; ' +
      'All targets shows retired ones',
    async () => {
      const { page, errors } = await openUi(app.browser, app.served.url);
      const feed = page.getByRole('table', { name: 'Activity feed' });
      const processes = page.getByRole('region', { name: 'Processes' });

      // Kill from the Processes panel.
      const m = marker('killme');
      const id = await background(`sleep 300; echo ${m}`, 'alpha');
      const row = processes.getByRole('row', { name: `sleep 300; echo ${m}` });
      await row.waitFor();
      await row.getByRole('button', { name: /^Kill/ }).click();
      await poll(() => row.textContent()).toMatch(/killed|exited/);
      const killRow = feed
        .getByRole('row')
        .filter({ hasText: `kill ${id}` })
        .first();
      await killRow.waitFor();
      const cells = (await killRow.getByRole('cell').allTextContents()).map((c) => c.trim());
      expect(cells.slice(1, 4)).toEqual(['ui', 'processes.kill', 'alpha']);
      await poll(() => killRow.getByRole('cell').nth(5).textContent()).toBe('ok');
      await poll(() =>
        audit().some(
          (l) =>
            l.kind === 'action' &&
            l.client === 'ui' &&
            l.tool === 'processes.kill' &&
            l.outcome === 'ok' &&
            l.args?.includes(id),
        ),
      ).toBe(true);

      // The row opens (Enter) to show its arguments, target, duration and result.
      await killRow.focus();
      await page.keyboard.press('Enter');
      const details = page.getByRole('region', { name: 'Details of processes.kill' });
      await details.waitFor();
      const text = await details.textContent();
      expect(text).toContain(`sleep 300; echo ${m}`);
      // First what happened: the outcome, the action, how long, who.
      expect(await details.locator('.activity-details__head').textContent()).toMatch(
        /^okprocesses\.kill.*\d+(\.\d+)? (ms|s) · ui · /,
      );
      expect(await killRow.getAttribute('aria-current')).toBe('true');
      // Closed again: the list has its every column back.
      await details.getByRole('button', { name: 'Close details' }).click();
      await details.waitFor({ state: 'detached' });

      // Add a runtime target in the window, start a process there, remove the target.
      await page.getByRole('button', { name: 'Add target' }).click();
      const dialog = page.getByRole('dialog', { name: 'Add target' });
      await dialog.getByLabel('Name').fill('gone');
      await dialog.getByLabel('Working directory').fill(app.served.dirs.beta);
      await dialog.getByRole('button', { name: 'Add target' }).click();
      await dialog.waitFor({ state: 'detached' });
      await feed.getByRole('row').filter({ hasText: 'add gone: local' }).first().waitFor();
      const m2 = marker('orphan');
      await background(`sleep 300; echo ${m2}`, 'gone');
      const gone = page.getByRole('listitem', { name: 'gone' });
      await gone.hover();
      await gone.getByRole('button', { name: 'Remove gone' }).click();
      await gone.getByRole('button', { name: 'Confirm remove gone' }).click();
      await gone.waitFor({ state: 'detached' });
      const removeRow = feed.getByRole('row').filter({ hasText: 'remove gone' }).first();
      await removeRow.waitFor();
      expect((await removeRow.getByRole('cell').allTextContents()).slice(1, 3)).toEqual(['ui', 'targets.remove']);
      await poll(() =>
        ['targets.register', 'targets.remove'].every((t) =>
          audit().some(
            (l) => l.kind === 'action' && l.client === 'ui' && l.tool === t && l.execution_target === 'gone',
          ),
        ),
      ).toBe(true);

      // The focused target's view does not show it; All targets does, marked retired.
      const orphan = processes.getByRole('row', { name: `sleep 300; echo ${m2}` });
      expect(await orphan.count()).toBe(0);
      await processes.getByRole('button', { name: 'All targets' }).click();
      await orphan.waitFor();
      expect(await orphan.textContent()).toContain('retired');
      expect(await orphan.textContent()).toContain('gone#');
      await page.screenshot({ path: join(root, 'test-results/e2e-window-actions.png') });
      await page.setViewportSize({ width: 900, height: 600 });
      await page.screenshot({ path: join(root, 'test-results/e2e-window-actions-900.png') });
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it('removing a target another program registered names its provider and owner and asks first', async () => {
    const reg = await app.served.cli([
      'targets',
      'register',
      'sandbox-7',
      '--backend',
      'local',
      '--cwd',
      app.served.dirs.beta,
      '--provider',
      'sandboxd',
      '--owner-id',
      'job-7',
    ]);
    expect(reg.code, reg.stderr).toBe(0);
    const { page, errors } = await openUi(app.browser, app.served.url);
    const row = page.getByRole('listitem', { name: 'sandbox-7' });
    await row.waitFor();
    await row.hover();
    await row.getByRole('button', { name: 'Remove sandbox-7' }).click();
    const ask = page.getByRole('dialog', { name: 'Remove target sandbox-7?' });
    await ask.waitFor();
    const who = await ask.getByRole('list', { name: 'Registered by' }).textContent();
    expect(who).toContain('provider: sandboxd');
    expect(who).toContain('owner: job-7');
    await poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.screenshot({ path: join(root, 'test-results/e2e-remove-provider-target.png') });
    await page.keyboard.press('Escape');
    await ask.waitFor({ state: 'detached' });
    expect(await row.count()).toBe(1);
    await row.hover();
    await row.getByRole('button', { name: 'Remove sandbox-7' }).click();
    await ask.getByRole('button', { name: 'Remove target' }).click();
    await row.waitFor({ state: 'detached' });
    await page
      .getByRole('table', { name: 'Activity feed' })
      .getByRole('row')
      .filter({ hasText: 'remove sandbox-7' })
      .first()
      .waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });
  it("an agent call's row opens to what it returned, readable at 900×600", async () => {
    const { page, errors } = await openUi(app.browser, app.served.url, { width: 900, height: 600 });
    const feed = page.getByRole('table', { name: 'Activity feed' });
    const m = marker('returned');
    const r = await app.served.cli([
      'call',
      'terminal',
      JSON.stringify({ command: `echo ${m}; echo API_TOKEN=hunter22hunter22`, execution_target: 'alpha' }),
      '--json',
    ]);
    expect(r.stderr).toBe('');
    const row = feed.getByRole('row').filter({ hasText: m }).first();
    await row.waitFor();
    await row.click();
    const details = page.getByRole('region', { name: 'Details of terminal' });
    const returned = details.getByLabel('Returned');
    await poll(() => returned.textContent()).toContain(m);
    const text = (await returned.textContent()) ?? '';
    expect(text).toMatch(/^output: \n/);
    expect(text).toContain('exit_code: 0');
    expect(text).toContain(`cwd: ${app.served.dirs.alpha}`);
    // What the feed shows is redacted like the arguments.
    expect(text).not.toContain('hunter22hunter22');
    expect(await returned.isVisible()).toBe(true);
    const box = await returned.boundingBox();
    expect(box && box.height >= 40).toBe(true);
    await page.screenshot({ path: join(root, 'test-results/e2e-activity-details-900.png') });
    expect(errors).toEqual([]);
    await page.close();
  });
});
