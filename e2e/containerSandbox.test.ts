// Where work runs on Docker targets, through `serve`, the CLI and Chromium on the private dockerd: an attached
// container with the engine's socket inside, or privileged, is unsandboxed with its reason in `targets show`, doctor's
// warnings and the sidebar row (a person's pane header carries no mark); an ordinary attached one says what holds it
// in; a managed one is sandboxed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import Docker from 'dockerode';
import type { Browser } from 'playwright-core';
import { loadDockerEnv, removeContainers } from '../scripts/testEnv.js';
import { keepAliveScript } from '../src/main/core/backends/docker/containerConfig.js';
import { launchChromium, openUi, pane, screenshots, startServe, waitForText, type Served } from './harness.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 60_000, interval: 500 });

const te = loadDockerEnv();
const run = randomBytes(3).toString('hex');
const name = (what: string): string => `sb-e2e-confined-${run}-${what}`;

let served: Served;
let browser: Browser;
let docker: Docker;
/** Why the privileged container could not start here (an engine without every capability cannot): then not opened. */
let privUnstarted: string | undefined;
let fakeSocket = '';

const SOCK_REASON = () => `a container engine's socket is inside (${fakeSocket} at /var/run/docker.sock)`;

beforeAll(async () => {
  if (!te) return;
  docker = new Docker({ socketPath: te.socket });
  served = await startServe();
  fakeSocket = join(served.dirs.beta, 'not-a-socket');
  writeFileSync(fakeSocket, '');
  const make = async (what: string, hostConfig: Docker.HostConfig): Promise<void> => {
    const c = await docker.createContainer({
      name: name(what),
      Image: te.image,
      Entrypoint: ['/bin/sh', '-c'],
      Cmd: [keepAliveScript],
      HostConfig: hostConfig,
    });
    await c.start().catch((err: unknown) => {
      if (what !== 'priv') throw err;
      privUnstarted = err instanceof Error ? err.message : String(err);
      console.log(`containerSandbox e2e: the privileged container cannot start here (${privUnstarted}): judged only`);
    });
  };
  await make('plain', { NetworkMode: 'none' });
  await make('sock', { NetworkMode: 'none', Binds: [`${fakeSocket}:/var/run/docker.sock`] });
  await make('priv', { NetworkMode: 'none', Privileged: true });
  const host = `docker_host: "unix://${te.socket}"`;
  const configPath = join(served.home, 'config.yaml');
  writeFileSync(
    configPath,
    readFileSync(configPath, 'utf8') +
      [
        `    box: { backend: docker, docker_image: "${te.image}", ${host}, docker_network: none, cwd: /tmp }`,
        `    plain: { backend: docker, docker_container: "${name('plain')}", ${host}, cwd: /tmp }`,
        `    sock: { backend: docker, docker_container: "${name('sock')}", ${host}, cwd: /tmp }`,
        `    priv: { backend: docker, docker_container: "${name('priv')}", ${host}, cwd: /tmp }`,
        'approvals:',
        '  mode: ask',
        '  timeout: 600',
        '',
      ].join('\n'),
  );
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  if (docker) await removeContainers(docker, { name: [`sb-e2e-confined-${run}`] });
});

describe.skipIf(!te)('where work runs on Docker targets (real dockerd)', () => {
  it('targets show and doctor: unsandboxed, why and what to change; the others say what holds them in', async () => {
    // The health checks inspect each container once the config names it: what they saw reaches `targets show`.
    const show = async (target: string): Promise<string> => (await served.cli(['targets', 'show', target])).stdout;
    await poll(() => show('sock')).toMatch(/sandbox\s+unsandboxed \(a container engine's socket is inside/);
    const sock = await show('sock');
    expect(sock).toContain(`unsandboxed (${SOCK_REASON()})`);
    expect(sock).toMatch(/to hold it in\s+remove the mount at \/var\/run\/docker\.sock; or let Switchboard make one/);
    await poll(() => show('priv')).toMatch(/sandbox\s+unsandboxed \(it is privileged \(--privileged\)\)/);
    expect(await show('priv')).toMatch(/confined\s+a container you attached: runs as root, privileged/);
    await poll(() => show('plain')).toMatch(/sandbox\s+sandboxed \(container, no network\)/);
    expect(await show('plain')).toMatch(
      /confined\s+a container you attached: runs as root, the engine's default capabilities, network none, no host/,
    );
    expect(await show('plain')).not.toContain('to hold it in');
    const box = await show('box');
    expect(box).toMatch(/sandbox\s+sandboxed \(container, no network\)/);
    expect(box).toMatch(/confined\s+a container Switchboard made: no capabilities but CHOWN/);

    const doctor = await served.cli(['doctor', '--timeout', '20']);
    const warnings = doctor.stdout.split('\n').filter((l) => l.startsWith('warning: '));
    expect(warnings).toEqual([
      'warning: target "sock" runs agent work unsandboxed: ' +
        `${SOCK_REASON()} — remove the mount at /var/run/docker.sock; or let Switchboard make one (docker_image)`,
      'warning: target "priv" runs agent work unsandboxed: it is privileged (--privileged) — ' +
        'recreate it without --privileged; or let Switchboard make one (docker_image)',
    ]);
    const list = (await served.cli(['targets', 'list'])).stdout;
    expect(list.split('\n').find((l) => /^[* ] plain /.test(l))).toContain('sandboxed (container, no network)');
    expect(list.split('\n').find((l) => /^[* ] sock /.test(l))).toContain('unsandboxed (');
  });

  it("the sidebar row says it, a person's pane does not, at 1400×900 and 900×600", async () => {
    const { page, errors } = await openUi(browser, served.url, { width: 1400, height: 900 });
    const targets = page.getByRole('list', { name: 'Targets' });
    const row = (target: string) => targets.getByRole('listitem', { name: target });
    const sockMark = row('sock').getByRole('note', { name: 'unsandboxed' });
    await sockMark.waitFor({ timeout: 60_000 });
    expect(await sockMark.getAttribute('title')).toBe(
      `Agent commands here run with the powers of the host its container runs on: ${SOCK_REASON()}`,
    );
    const describedBy = await sockMark.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toContain(SOCK_REASON());
    expect(await row('priv').getByRole('note', { name: 'unsandboxed' }).getAttribute('title')).toContain(
      'it is privileged (--privileged)',
    );
    await poll(() =>
      row('plain')
        .getByRole('note', { name: 'sandboxed' })
        .getAttribute('title')
        .catch(() => ''),
    ).toMatch(/^Agent commands here run in a container you attached: runs as root, .*network none/);
    expect(await row('box').getByRole('note', { name: 'sandboxed' }).getAttribute('title')).toMatch(
      /^Agent commands here run in a container Switchboard made: no capabilities but CHOWN/,
    );

    // Pane 1 on the container with the socket inside: a person's pane is never sandboxed, so its header carries no
    // mark (the sidebar row says where the agent's work runs).
    const p1 = pane(page, 1);
    await p1.getByRole('combobox', { name: 'Target' }).selectOption('sock');
    // busybox's ash, as root: its prompt ends in #.
    await waitForText(p1, /# *$/m, 20_000);
    const header = p1.locator('.pane__header');
    expect(await header.getByRole('note', { name: /sandboxed/ }).count()).toBe(0);
    expect(await header.textContent()).not.toMatch(/sandboxed/);
    await screenshots(page, 'container-sandbox');
    expect(errors).toEqual([]);
    await page.close();
  });

  it('"Approve command" says a call there runs with the powers of the host, and why', async () => {
    const { page, errors } = await openUi(browser, served.url, { width: 1400, height: 900 });
    const call = served.cli([
      'call',
      'terminal',
      JSON.stringify({ command: 'rm -rf /tmp/scratch', execution_target: 'sock' }),
      '--json',
    ]);
    const d = page.getByRole('alertdialog', { name: 'Approve command' });
    const note = d.getByRole('note', { name: 'Where it runs' });
    await note.waitFor({ timeout: 30_000 });
    expect(await note.textContent()).toBe(
      'This target is unsandboxed: the command runs with the powers of the host its container runs on, ' +
        `since ${SOCK_REASON()}.`,
    );
    await screenshots(page, 'container-approve');
    await d.getByRole('button', { name: 'Deny' }).click();
    expect((await call).code).not.toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });
});
