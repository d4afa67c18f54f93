// Panes on a local, an SSH and a Docker target side by side in one tab, each running on its own box.
// With SB_SCREENSHOT=1 it also refreshes the README picture (docs/screenshot.png).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadSshEnv, loadDockerEnv } from '../scripts/testEnv.js';
import { launchChromium, marker, openUi, pane, root, run, startServe, waitForText, type Served } from './harness.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();

let served: Served;
let browser: Browser;

beforeAll(async () => {
  if (!ssh || !docker) return;
  served = await startServe();
  writeFileSync(join(served.home, 'known_hosts'), `${ssh.knownHostsLine}\n`, { mode: 0o600 });
  const configPath = join(served.home, 'config.yaml');
  writeFileSync(
    configPath,
    readFileSync(configPath, 'utf8') +
      [
        `    compute: { backend: ssh, ssh_host: ${ssh.host}, ssh_port: ${ssh.port}, ssh_user: ${ssh.user}, ` +
          `ssh_key: ${ssh.key}, cwd: /tmp }`,
        `    sandbox: { backend: docker, docker_image: "${docker.image}", docker_host: ` +
          `"unix://${docker.socket}", docker_network: none, cwd: /srv }`,
        '',
      ].join('\n'),
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await served?.cli(['targets', 'list']).catch(() => undefined);
  await browser?.close();
  await served?.stop();
});

describe.skipIf(!ssh || !docker)('three backends side by side', () => {
  it('runs each pane on its own target and shows it in the header', async () => {
    const { page, errors } = await openUi(browser, served.url);
    // Let the sandbox's cwd exist: an agent call through the CLI, which also shows in the Activity feed.
    expect(
      (
        await served.cli([
          'call',
          'terminal',
          '{"command":"mkdir -p /srv && cd /srv","execution_target":"sandbox","workdir":"/"}',
        ])
      ).code,
    ).toBe(0);
    mkdirSync(join(served.dirs.alpha, 'project'), { recursive: true });

    const p1 = pane(page, 1);
    await run(p1, 'cd project');
    await page.keyboard.press('Control+Shift+D');
    const p2 = pane(page, 2);
    await p2.waitFor();
    await p2.getByRole('combobox', { name: 'Target' }).selectOption('compute');
    await waitForText(p2, /\$ *$/m, 15_000);
    await page.keyboard.press('Control+Shift+D');
    const p3 = pane(page, 3);
    await p3.waitFor();
    await p3.getByRole('combobox', { name: 'Target' }).selectOption('sandbox');
    await waitForText(p3, /# *$/m, 20_000);

    const who = marker('who');
    // Short lines: a narrow pane wraps long ones, which would split what the test looks for.
    for (const p of [p1, p2, p3]) await run(p, `echo ${who}:$(whoami):$(hostname):$(basename $(pwd))`);
    const t1 = await waitForText(p1, new RegExp(`^${who}:\\S+:\\S+:project$`, 'm'));
    const t2 = await waitForText(p2, new RegExp(`^${who}:${ssh!.user}:\\S+:tmp$`, 'm'));
    const t3 = await waitForText(p3, new RegExp(`^${who}:root:\\S+:srv$`, 'm'));
    // Different boxes: the container's hostname is its own.
    const host = (t: string) => new RegExp(`^${who}:\\S+:(\\S+):`, 'm').exec(t)?.[1];
    expect(host(t3)).not.toBe(host(t1));
    expect(host(t1)).toBeDefined();
    expect(host(t2)).toBeDefined();

    // Headers name the target; the local one follows its cd.
    await expect.poll(() => p1.textContent()).toContain(`${served.dirs.alpha}/project`);
    expect(await p2.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('compute');
    expect(await p3.getByRole('combobox', { name: 'Target' }).inputValue()).toBe('sandbox');

    // Side by side: three panes in one row.
    const boxes = await Promise.all([p1, p2, p3].map((p) => p.boundingBox()));
    expect(boxes[1]!.x).toBeGreaterThan(boxes[0]!.x);
    expect(boxes[2]!.x).toBeGreaterThan(boxes[1]!.x);

    // Every pane's header follows a cd, whatever the shell: bash reports through PROMPT_COMMAND, busybox ash
    // through its prompt.
    const cwdOf = (p: typeof p1) => p.getByRole('status', { name: 'Working directory' }).textContent();
    await run(p2, 'cd /usr');
    await run(p3, 'cd /tmp');
    await expect.poll(() => cwdOf(p2)).toBe('/usr');
    await expect.poll(() => cwdOf(p3)).toBe('/tmp');

    await run(p2, 'clear; uname -sr; ls -la /tmp | head -5');
    await run(p3, 'clear; cat /etc/os-release 2>/dev/null | head -2 || busybox | head -1; ls /');
    await page.waitForTimeout(800);
    expect(errors).toEqual([]);
    await page.screenshot({ path: join(root, 'test-results/e2e-three-targets.png') });
    if (process.env.SB_SCREENSHOT === '1') await page.screenshot({ path: join(root, 'docs/screenshot.png') });
  }, 90_000);
});
