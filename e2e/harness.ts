// Starts a real `switchboard serve` on a throwaway profile (two local targets) and a headless Chromium to drive its UI.
import { spawn, spawnSync, execFile, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { parsePersonLink, runCliAtTerminal, tradeCode } from '../scripts/cliHarness.js';
import type { SshTestEnv } from '../scripts/testEnv.js';
import { personCookieName } from '../src/main/transport/personCookie.js';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'switchboard.js');

export interface Served {
  /**
   * The page URL with ?token=, without a code: the harness traded the link's code once (as the page does) and gives
   * every page openUi opens the cookie it bought (see asPerson); a page opened otherwise is not the person's.
   */
  url: string;
  home: string;
  /** cwd of the `alpha` and `beta` targets. */
  dirs: { alpha: string; beta: string };
  env: NodeJS.ProcessEnv;
  /** Runs `switchboard ARGS…` against this profile, as a program without a terminal (an agent's commands run so). */
  cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Runs `switchboard ARGS…` as a person does: at a terminal of its own (a pty: stderr shows in stdout). */
  personCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /**
   * Stops the Core and starts it again on the same profile; `url` becomes the new one (returned too). `whileDown` runs
   * between. `overlap`: the new Core starts as soon as the old one was asked to stop, while it is still stopping (as
   * a person who restarts at once does).
   */
  restart(whileDown?: () => Promise<void>, opts?: { overlap?: boolean }): Promise<string>;
  stop(): Promise<void>;
}

/** Builds the CLI and renderer once when out/ lacks them (e2e/run.mjs always rebuilds first). */
export function ensureBuilt(): void {
  const cliBuilt = ['main.js', 'main.cjs', 'main.mjs'].some((f) => existsSync(join(root, 'out/cli', f)));
  if (cliBuilt && existsSync(join(root, 'out/renderer/index.html'))) return;
  const lock = join(root, 'out', '.e2e-build-lock');
  mkdirSync(join(root, 'out'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // Another test file is building; wait for it.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
      if (!existsSync(lock)) return ensureBuilt();
    }
  }
  try {
    const r = spawnSyncNode([join(root, 'scripts/build.mjs')]);
    if (r !== 0) throw new Error('node scripts/build.mjs failed');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function spawnSyncNode(args: string[]): number {
  return spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
}

/** config.yaml's line for an SSH target on the test sshd (scripts/test-env.sh up); `extra`: more fields. */
export function sshTargetLine(name: string, ssh: SshTestEnv, extra = ''): string {
  return (
    `    ${name}: { backend: ssh, ssh_host: ${ssh.host}, ssh_port: ${ssh.port}, ssh_user: ${ssh.user}, ` +
    `ssh_key: ${ssh.key}${extra ? `, ${extra}` : ''} }`
  );
}

/** Adds target lines to a served profile's config.yaml; `knownHosts`: lines for its known_hosts. */
export function addTargets(served: Served, lines: string[], knownHosts: string[] = []): void {
  const config = join(served.home, 'config.yaml');
  writeFileSync(config, readFileSync(config, 'utf8') + lines.map((l) => `${l}\n`).join(''));
  if (knownHosts.length) writeFileSync(join(served.home, 'known_hosts'), knownHosts.join('\n') + '\n', { mode: 0o600 });
}

export function targetsYaml(targets: Record<string, { cwd: string }>, defaultTarget = 'alpha'): string {
  const lines = ['terminal:', `  default_target: ${defaultTarget}`, '  targets:'];
  for (const [name, t] of Object.entries(targets))
    lines.push(`    ${name}: { backend: local, cwd: ${JSON.stringify(t.cwd)} }`);
  return lines.join('\n') + '\n';
}

/** Profile folder per served URL, so a page can start without the previous page's saved tabs. */
const homeOf = new Map<string, string>();
/** Per served URL, what the link's code bought: the person's secret (the page's cookie) and the page's home. */
const personOf = new Map<string, { secret: string; home: string }>();

/** The person's secret for a served page's URL: a test's own connection acts for the person with it (connectCore). */
export function personSecret(url: string): string {
  const person = personOf.get(url);
  if (!person) throw new Error(`no person link was traded for ${url}`);
  return person.secret;
}

/**
 * Make `page` the person's, as the link's page is: its context gets the person's cookie for `url`'s Core. Returns
 * the address to open: the person's page's home, where that cookie goes.
 */
export async function asPerson(page: Page, url: string): Promise<string> {
  const u = new URL(url);
  const person = personOf.get(url);
  if (!person) throw new Error(`no person link was traded for ${url}`);
  await page.context().addCookies([
    {
      name: personCookieName(Number(u.port)),
      value: person.secret,
      domain: u.hostname,
      path: person.home.replace(/\/$/, ''),
      httpOnly: true,
      sameSite: 'Strict',
    },
  ]);
  return `${u.origin}${person.home}`;
}

export interface ServeOptions {
  /** Appended to config.yaml (e.g. an `approvals:` section). */
  configExtra?: string;
}

/**
 * Runs `switchboard serve` on a profile until it hands its person link to descriptor 3, and trades the link's code as
 * the person's page would (the test is the person). `url`: the page's address with the token, without the code.
 */
async function spawnServe(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const child: ChildProcess = spawn(process.execPath, [bin, 'serve', '--port', '0', '--link-fd', '3'], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  child.stdout?.resume();
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve handed no link in 20 s; stderr: ${stderr}`)), 20_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\/\/\S+)\n/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${stderr}`));
    });
  });
  const link = parsePersonLink(url);
  if (!link) throw new Error(`serve handed a malformed link: ${url}`);
  const traded = await tradeCode(link.url, link.token, link.code);
  if (!traded.secret || !traded.home)
    throw new Error(`the link's code bought no cookie: ${traded.status} ${traded.body}`);
  const page = url.replace(/#.*$/, '');
  personOf.set(page, { secret: traded.secret, home: traded.home });
  return { child, url: page };
}

/** Pids of live processes whose environment has HOME=home: the shells a Core started for this profile. */
function processesWithHome(home: string): number[] {
  const needle = `\0HOME=${home}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (`\0${readFileSync(`/proc/${entry}/environ`, 'latin1')}`.includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone already, or not ours to read.
    }
  }
  return pids;
}

/** Waits (up to 10 s) until the shells of a stopped Core have ended, then ends any that linger. */
async function awaitShellsGone(home: string): Promise<void> {
  for (let i = 0; i < 100 && processesWithHome(home).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  for (const pid of processesWithHome(home)) {
    let what = '';
    try {
      what = readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trim().slice(0, 120);
    } catch {
      // Gone meanwhile.
    }
    console.warn(`e2e: process ${pid} (${what}) outlived its Core by 10 s; ending it`);
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended meanwhile.
    }
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  if (child.exitCode === null) child.kill('SIGKILL');
}

export async function startServe(opts: ServeOptions = {}): Promise<Served> {
  ensureBuilt();
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'sb-e2e-')));
  const home = join(base, 'home');
  const dirs = { alpha: join(base, 'x'), beta: join(base, 'y') };
  const userHome = join(base, 'user');
  for (const d of [home, dirs.alpha, dirs.beta, join(dirs.alpha, 'sub'), userHome]) mkdirSync(d, { recursive: true });
  writeFileSync(
    join(home, 'config.yaml'),
    targetsYaml({ alpha: { cwd: dirs.alpha }, beta: { cwd: dirs.beta } }) + (opts.configExtra ?? ''),
  );
  // A clean shell: no rc files that replace PROMPT_COMMAND (the pane's OSC 7 cwd reports ride on it).
  writeFileSync(join(userHome, '.bashrc'), 'PS1="\\w \\$ "\n');
  const env: NodeJS.ProcessEnv = { ...process.env, SWITCHBOARD_HOME: home, HOME: userHome, SHELL: '/bin/bash' };
  delete env.PROMPT_COMMAND;

  let { child, url } = await spawnServe(env);
  homeOf.set(url, home);
  const cli = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      execFile(process.execPath, [bin, ...args], { cwd: root, env, timeout: 30_000 }, (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : 1
          : 0;
        resolve({ code, stdout, stderr });
      });
    });

  // The person's terminal: the same runner as the CLI tests' (scripts/cliHarness.ts).
  const personEnv = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
  const personCli = async (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    const r = await runCliAtTerminal(home, args, personEnv);
    return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr };
  };

  const served: Served = {
    url,
    home,
    dirs,
    env,
    cli,
    personCli,
    restart: async (whileDown, restartOpts) => {
      const old = child;
      if (restartOpts?.overlap) {
        old.kill('SIGTERM');
        // Reaped once it has stopped; a Core that never does is ended as stop() ends one.
        void new Promise((r) => setTimeout(r, 20_000)).then(() => stopChild(old));
      } else await stopChild(old);
      await whileDown?.();
      ({ child, url } = await spawnServe(env));
      homeOf.set(url, home);
      served.url = url;
      return url;
    },
    stop: async () => {
      await stopChild(child);
      // Shells ended by the Core's exit may still be writing their history into the test user's home:
      // wait for them, so the directory is not removed under a writer.
      await awaitShellsGone(userHome);
      try {
        rmSync(base, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
      } catch (err) {
        // A leftover under /tmp is not this test's result; the next fresh-machine run sweeps /tmp/sb-*.
        console.warn(`e2e: could not remove ${base}: ${(err as Error).message}`);
      }
    },
  };
  return served;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/** Opens the UI and waits until the first pane's shell is live. Collects console errors (CSP violations included). */
export async function openUi(
  browser: Browser,
  url: string,
  viewport = { width: 1440, height: 900 },
  opts: { keepWorkspace?: boolean; permissions?: string[]; bypassCSP?: boolean } = {},
): Promise<{ page: Page; errors: string[] }> {
  // Each page starts with one terminal unless a test is about the tabs kept from the last session.
  const home = homeOf.get(url);
  if (home && !opts.keepWorkspace) rmSync(join(home, 'ui-state.json'), { force: true });
  const page = await browser.newPage({
    viewport,
    deviceScaleFactor: 1,
    ...(opts.permissions ? { permissions: opts.permissions } : {}),
    // Only for a test that injects a script of its own (axe-core): the window's CSP forbids inline scripts.
    ...(opts.bypassCSP ? { bypassCSP: true } : {}),
  });
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const address = personOf.has(url) ? await asPerson(page, url) : url;
  // A page closed just before may still have had its last layout saved after the file went (its pagehide save):
  // start again from nothing when that layout came back, as more than one pane or with a first pane whose shell never
  // comes (a target that test took down). Counted once the first shell is up, so every pane of a restored layout is on
  // the page by then.
  const restarts = home && !opts.keepWorkspace ? 5 : 0;
  for (let i = 0; ; i++) {
    await page.goto(address);
    await page.getByRole('region', { name: 'Pane 1' }).waitFor();
    const shown = await waitForPrompt(pane(page, 1)).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (i === restarts) {
      if (shown !== undefined) throw shown;
      break;
    }
    const panes = await page
      .getByRole('tabpanel')
      .getByRole('region', { name: /^Pane \d+$/ })
      .count();
    if (shown === undefined && (await page.getByRole('tab').count()) === 1 && panes === 1) break;
    await new Promise((r) => setTimeout(r, 300));
    if (home) rmSync(join(home, 'ui-state.json'), { force: true });
  }
  return { page, errors };
}

/** The two window sizes a layout is checked at: a laptop's full window, and a small one. */
export const windowSizes = [
  { width: 1400, height: 900 },
  { width: 900, height: 600 },
] as const;

export function pane(page: Page, n: number): Locator {
  return page.getByRole('tabpanel').getByRole('region', { name: `Pane ${n}` });
}

/** What the pane's terminal shows, row by row (xterm's DOM renderer). */
export async function terminalText(p: Locator): Promise<string> {
  const rows = await p.locator('.xterm-rows > div').allTextContents();
  return rows.map((r) => r.replace(/\u00a0/g, ' ').trimEnd()).join('\n');
}

export async function waitForText(p: Locator, needle: string | RegExp, timeoutMs = 10_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < until) {
    text = await terminalText(p);
    if (typeof needle === 'string' ? text.includes(needle) : needle.test(text)) return text;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`terminal never showed ${String(needle)}; it shows:\n${text}`);
}

/** The test shell's prompt ends with "$ ". */
export function waitForPrompt(p: Locator): Promise<string> {
  return waitForText(p, /\$ *$/m);
}

/** Types a command line into a pane's terminal. */
/**
 * Waits until the line that ran `command` has ended in the window (its line feed came and the cursor moved below it):
 * from then on the window counts the command as a running program. Its echoed text alone can come first.
 */
export async function waitForStarted(p: Locator, command: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const below = await p.locator('.xterm-rows > div').evaluateAll((rows, c) => {
      const at = rows.findLastIndex((r) => (r.textContent ?? '').replace(/\u00a0/g, ' ').includes(c));
      const cursor = rows.findIndex((r) => r.querySelector('.xterm-cursor') !== null);
      return at >= 0 && cursor > at;
    }, command);
    if (below) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the line running ${command} never ended in the terminal:\n${await terminalText(p)}`);
}

export async function run(p: Locator, command: string): Promise<void> {
  await p.locator('.xterm').click();
  await p.page().keyboard.type(command);
  await p.page().keyboard.press('Enter');
}

export function marker(prefix: string): string {
  return `${prefix}-${Math.floor(Math.random() * 1e9).toString(36)}`;
}

/** One `serve` and one Chromium for a spec file: started before its tests, stopped after. Read them inside tests. */
export function useServeAndBrowser(
  prepare?: (served: Served) => void | Promise<void>,
  opts: ServeOptions = {},
): { readonly served: Served; readonly browser: Browser } {
  let served: Served | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    served = await startServe(opts);
    await prepare?.(served);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await served?.stop();
  });
  return {
    get served(): Served {
      if (!served) throw new Error('serve has not started');
      return served;
    },
    get browser(): Browser {
      if (!browser) throw new Error('Chromium has not started');
      return browser;
    },
  };
}

/** The page at 1400×900 and at 900×600, as test-results/e2e-<name>-1400.png and -900.png; back to 1400×900 after. */
export async function screenshots(page: Page, name: string): Promise<void> {
  const dir = join(root, 'test-results');
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: join(dir, `e2e-${name}-1400.png`), animations: 'disabled' });
  await page.setViewportSize({ width: 900, height: 600 });
  await page.screenshot({ path: join(dir, `e2e-${name}-900.png`), animations: 'disabled' });
  await page.setViewportSize({ width: 1400, height: 900 });
}
