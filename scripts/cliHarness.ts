// Runs the real `switchboard` binary for integration tests: a serve process and one-shot commands.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { repoRoot } from './testEnv.js';

export const cliPath = join(repoRoot, 'bin', 'switchboard.js');
/** The installed command (package.json "bin"): a script that runs cliPath (serve and mcp with a trim threshold). */
export const binPath = join(repoRoot, 'bin', 'switchboard');

/** Build the CLI bundle once if a test runs before `npm run build`. */
export function ensureBuilt(): void {
  if (existsSync(join(repoRoot, 'out', 'cli', 'main.cjs'))) return;
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), 'node'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

export function tempHome(prefix = 'sb-home-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Another user the command runs as (root only), with where that user finds the built app (scripts/asUser.ts). */
export interface RunAs {
  uid: number;
  gid: number;
  app: string;
}

/** The CLI's entry and the spawn options of a command run as `runAs` (or as this process). */
function asWho(runAs: RunAs | undefined): { cli: string; ids: { uid?: number; gid?: number } } {
  return runAs
    ? { cli: join(runAs.app, 'bin', 'switchboard.js'), ids: { uid: runAs.uid, gid: runAs.gid } }
    : { cli: cliPath, ids: {} };
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  home: string,
  args: string[],
  env: Record<string, string> = {},
  runAs?: RunAs,
): Promise<CliResult> {
  const who = asWho(runAs);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [who.cli, ...args], {
      env: { ...process.env, SWITCHBOARD_HOME: home, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...who.ids,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * `switchboard ARGS` as a person runs it: on a pty of its own (`script` gives it a controlling terminal), in this
 * process's namespaces. A pty merges stderr into stdout; `\r` is dropped. `answer` is typed (with Enter) when the
 * command asks a `[y/N]` question.
 */
export function runCliAtTerminal(
  home: string,
  args: string[],
  env: Record<string, string> = {},
  answer?: string,
  runAs?: RunAs,
): Promise<CliResult> {
  const quote = (s: string): string => `'${s.replace(/'/g, "'\\''")}'`;
  const who = asWho(runAs);
  const command = [process.execPath, who.cli, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, SWITCHBOARD_HOME: home, ...env },
      stdio: [answer === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
      ...who.ids,
    });
    let stdout = '';
    let asked = false;
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      if (answer !== undefined && !asked && /\[y\/N\] $/.test(stdout)) {
        asked = true;
        child.stdin?.write(`${answer}\r`);
      }
    });
    child.on('close', (status) => resolve({ status, stdout: stdout.replace(/\r/g, ''), stderr: '' }));
  });
}

/** `switchboard call TOOL ARGS --json` against the profile's running Core; throws with its stderr when it fails. */
export async function callTool(
  home: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const r = await runCli(home, ['call', tool, JSON.stringify(args), '--json']);
  if (r.status !== 0) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

export interface Served {
  url: string;
  /** The person link serve handed over (its one-time code already traded by the harness). */
  openUrl: string;
  token: string;
  /**
   * The person's lasting secret: what the link's code bought, as a browser's cookie (the harness traded it as the page
   * does). A socket that sends it as that cookie is a person's.
   */
  approver: string;
  /** The person's page's home (`/p/<random>/`): where that cookie goes, and the page lives. */
  home: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The parts of a person link (`serve --link-fd`, `switchboard open`): the page's address, the token, the code. */
export function parsePersonLink(link: string): { url: string; token: string; code: string } | undefined {
  const m = /^(http:\/\/\S+?)\?token=([^\s#]+)#code=(\S+)$/.exec(link.trim());
  return m ? { url: m[1]!, token: decodeURIComponent(m[2]!), code: decodeURIComponent(m[3]!) } : undefined;
}

/** What trading a code answered: the status, the body, and the person's secret when a cookie was set. */
export interface Traded {
  status: number;
  body: string;
  /** Every response header but Set-Cookie, as sent (a test looks for the secret there). */
  otherHeaders: string;
  secret: string | undefined;
  setCookie: string | undefined;
  /** The person's page's home (`/p/<random>/`) the trade answered: the cookie's Path, where the page goes on to. */
  home: string | undefined;
}

/** Trade a person link's one-time code as the page does: a same-origin POST with the token, from loopback. */
export async function tradeCode(pageUrl: string, token: string, code: string): Promise<Traded> {
  const origin = new URL(pageUrl).origin;
  const res = await fetch(new URL('/person', pageUrl), {
    method: 'POST',
    headers: { origin, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const setCookie = res.headers.get('set-cookie') ?? undefined;
  const other = [...res.headers.entries()].filter(([k]) => k !== 'set-cookie');
  const body = await res.text();
  let home: string | undefined;
  try {
    home = (JSON.parse(body) as { home?: string }).home;
  } catch {
    // not the page's answer (a refusal before the route): no home
    home = undefined;
  }
  return {
    status: res.status,
    body,
    home,
    otherHeaders: other.map(([k, v]) => `${k}: ${v}`).join('\n'),
    secret: setCookie ? /^switchboard_person_\d+=([^;]+);/.exec(setCookie)?.[1] : undefined,
    setCookie,
  };
}

/**
 * Start `switchboard serve` on a free port and wait for the person link it hands to descriptor 3 (`--link-fd 3`), as a
 * program that starts serve for a person does: the test acts as that person.
 */
/** `switchboard serve` on `home`; `launcher`: through bin/switchboard, as `npm link` installs the command. */
export function startServe(
  home: string,
  env: Record<string, string> = {},
  launcher = false,
  runAs?: RunAs,
): Promise<Served> {
  const args = ['serve', '--port', '0', '--link-fd', '3'];
  const who = asWho(runAs);
  const [command, argv] = launcher ? [binPath, args] : [process.execPath, [who.cli, ...args]];
  const child = spawn(command, argv, {
    env: { ...process.env, SWITCHBOARD_HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
    ...who.ids,
  });
  return new Promise((resolve, reject) => {
    let linkText = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 20_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout!.resume();
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${err.trim()}`));
    });
    const linkPipe = child.stdio[3] as NodeJS.ReadableStream;
    linkPipe.setEncoding('utf8');
    let handed = false;
    linkPipe.on('data', async (d: string) => {
      linkText += d;
      if (handed || !linkText.includes('\n')) return;
      handed = true;
      const link = parsePersonLink(linkText.split('\n')[0]!);
      if (!link) return reject(new Error(`serve handed a malformed link: ${linkText}`));
      clearTimeout(timer);
      child.removeAllListeners('exit');
      // The person opens the link: the page trades its code for the cookie.
      const traded = await tradeCode(link.url, link.token, link.code);
      if (!traded.secret || !traded.home)
        return reject(new Error(`the link's code bought no cookie: ${traded.status} ${traded.body}`));
      resolve({
        url: link.url,
        token: link.token,
        openUrl: linkText.split('\n')[0]!,
        approver: traded.secret,
        home: traded.home,
        child,
        stop: () =>
          new Promise((res) => {
            // Exited, or killed by a signal (a test's SIGKILL): nothing left to stop.
            if (child.exitCode !== null || child.signalCode !== null) return res();
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * A fresh profile with `switchboard serve` running on it for a describe block: started before its tests, stopped and
 * removed after them. `served()` is the running serve once the block's tests run.
 */
export function servedProfile(
  prefix: string,
  hooks: { beforeAll(fn: () => Promise<void>): void; afterAll(fn: () => Promise<void>): void },
  /**
   * Give the profile a config with one target, `local`, whose cwd is a folder `work` of its own: not inside the
   * profile, which the sandbox hides from agent work.
   */
  withLocal = false,
): { home: string; work: string; served(): Served } {
  const home = tempHome(prefix);
  const work = withLocal ? tempHome(`${prefix}work-`) : home;
  let served: Served | undefined;
  hooks.beforeAll(async () => {
    ensureBuilt();
    if (withLocal)
      writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${work} }\n`);
    served = await startServe(home);
  });
  hooks.afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    if (withLocal) rmSync(work, { recursive: true, force: true });
  });
  return {
    home,
    work,
    served: () => {
      if (!served) throw new Error('serve is not running yet');
      return served;
    },
  };
}

/** The SDK's MCP client of `served`'s /mcp over HTTP, as a client configured with its URL and token is. */
export async function mcpHttpClient(served: Served, name = 'test-http'): Promise<Client> {
  const http = new Client({ name, version: '1' });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`${served.url}mcp`), {
      requestInit: { headers: { authorization: `Bearer ${served.token}` } },
    }),
  );
  return http;
}

/** The SDK's MCP client on a served profile, both ways an agent connects: /mcp over HTTP and `switchboard mcp`. */
export async function mcpClients(
  home: string,
  served: Served,
  name = 'test',
): Promise<{ http: Client; stdio: Client }> {
  const http = await mcpHttpClient(served, `${name}-http`);
  const stdio = new Client({ name: `${name}-stdio`, version: '1' });
  await stdio.connect(
    new StdioClientTransport({
      command: binPath,
      args: ['mcp'],
      env: { ...(process.env as Record<string, string>), SWITCHBOARD_HOME: home },
      stderr: 'pipe',
    }),
  );
  return { http, stdio };
}
