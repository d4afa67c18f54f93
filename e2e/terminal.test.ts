// The terminal panes end to end: pick a target, type, see output; split two targets side by side; keyboard shortcuts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectCore } from '../src/main/transport/wsLink.js';
import { readCoreFile } from '../src/main/transport/coreFile.js';
import {
  useServeAndBrowser,
  marker,
  openUi,
  pane,
  personSecret,
  root,
  run,
  terminalText,
  waitForText,
} from './harness.js';

const app = useServeAndBrowser();

/** The Core's own view of open panes, through a second client. */
async function corePanes(): Promise<Array<{ execution_target: string; status: string }>> {
  const info = readCoreFile(app.served.home);
  const { client, close } = await connectCore(info.ws_url, info.token, undefined, personSecret(app.served.url));
  try {
    return await client.call('pane.list', {});
  } finally {
    close();
  }
}

describe('terminal panes', () => {
  it('runs a command on the target picked in the pane and shows it in the header', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    expect(new URL(page.url()).searchParams.has('token'), 'the token is stripped from the address bar').toBe(false);

    const p1 = pane(page, 1);
    const picker = p1.getByRole('combobox', { name: 'Target' });
    expect(await picker.inputValue()).toBe('alpha');
    await picker.selectOption('beta');
    await waitForText(p1, `${app.served.dirs.beta} $`);

    const m = marker('hello');
    await run(p1, `echo ${m}-$((6*7))`);
    await waitForText(p1, `${m}-42`);

    expect(await picker.inputValue()).toBe('beta');
    await expect
      .poll(() => p1.getByRole('status', { name: 'Working directory' }).textContent())
      .toBe(app.served.dirs.beta);
    // Changing the target closed the pty on alpha: the Core holds one pane, on beta.
    await expect.poll(async () => (await corePanes()).map((p) => p.execution_target)).toEqual(['beta']);

    await page.screenshot({ path: join(root, 'test-results/e2e-terminal.png') });
    expect(errors).toEqual([]);
    await page.close();
  });

  it('splits into two panes on two targets side by side; cd moves only its own header', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    await p1.locator('.xterm').click();
    await page.keyboard.press('Control+Shift+D');
    const p2 = pane(page, 2);
    await p2.waitFor();
    await p2.getByRole('combobox', { name: 'Target' }).selectOption('beta');
    await waitForText(p2, `${app.served.dirs.beta} $`);

    const [b1, b2] = [await p1.boundingBox(), await p2.boundingBox()];
    expect(b1 && b2, 'both panes are laid out').toBeTruthy();
    expect(b2!.x).toBeGreaterThanOrEqual(b1!.x + b1!.width - 1);
    expect(Math.abs(b2!.y - b1!.y)).toBeLessThan(2);

    const cwd1 = p1.getByRole('status', { name: 'Working directory' });
    const cwd2 = p2.getByRole('status', { name: 'Working directory' });
    await expect.poll(() => cwd1.textContent()).toBe(app.served.dirs.alpha);
    await expect.poll(() => cwd2.textContent()).toBe(app.served.dirs.beta);

    await run(p1, 'cd sub');
    await expect.poll(() => cwd1.textContent()).toBe(join(app.served.dirs.alpha, 'sub'));
    await waitForText(p1, `${join(app.served.dirs.alpha, 'sub')} $`);
    expect(await cwd2.textContent()).toBe(app.served.dirs.beta);
    expect(await terminalText(p2)).not.toContain('sub');

    const m = marker('right');
    await run(p2, `echo ${m}`);
    await waitForText(p2, new RegExp(`^${m}$`, 'm'));
    expect(await terminalText(p1)).not.toContain(m);
    await page.screenshot({ path: join(root, 'test-results/e2e-split.png') });

    // Ctrl+Shift+W closes the focused pane (the right one); Ctrl+Shift+T opens a tab.
    await page.keyboard.press('Control+Shift+W');
    await expect.poll(() => page.getByRole('tabpanel').getByRole('region').count()).toBe(1);
    await page.keyboard.press('Control+Shift+T');
    await expect.poll(() => page.getByRole('tab').count()).toBe(2);
    await expect.poll(async () => page.getByRole('tab', { selected: true }).textContent()).toContain('alpha');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows "[process exited]" when the shell ends and opens a new one on Enter', async () => {
    const { page } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    await run(p1, 'exit');
    await waitForText(p1, '[process exited]');
    await page.keyboard.press('Enter');
    const m = marker('again');
    await waitForText(p1, /\$ *$/m);
    await run(p1, `echo ${m}`);
    await waitForText(p1, new RegExp(`^${m}$`, 'm'));
    await page.close();
  });

  it('keeps up with a flood of output: acknowledgements keep the pty flowing past the high watermark', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    const m = marker('flood');
    // ~4.5 MB of output: 4.5x the Core's 1,000,000-char pause mark, so it only finishes if the renderer acks.
    await run(p1, `seq 1 600000; echo ${m}-$((1+1))`);
    await waitForText(p1, new RegExp(`^600000\\n${m}-2$`, 'm'), 30_000);
    const m2 = marker('still');
    await run(p1, `echo ${m2}`);
    await waitForText(p1, new RegExp(`^${m2}$`, 'm'));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('gives the terminals more or fewer rows when the panels are resized', async () => {
    const { page, errors } = await openUi(app.browser, app.served.url);
    const p1 = pane(page, 1);
    const rows = () => p1.locator('.xterm-rows > div').count();
    const before = await rows();
    const splitter = page.getByRole('separator', { name: 'Resize panels' });
    const h0 = Number(await splitter.getAttribute('aria-valuenow'));
    await splitter.focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowUp');
    await expect.poll(async () => Number(await splitter.getAttribute('aria-valuenow'))).toBe(h0 + 96);
    await expect.poll(rows).toBeLessThan(before);
    // The shell was told: `tput lines` reports the new height.
    await run(p1, 'echo rows=$(tput lines)');
    await waitForText(p1, new RegExp(`^rows=${await rows()}$`, 'm'));
    expect(errors).toEqual([]);
    await page.close();
  });
});
