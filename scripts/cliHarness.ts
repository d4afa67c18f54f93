// Runs the real `switchboard` binary for integration tests: a serve process and one-shot commands.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './testEnv.js';

export const cliPath = join(repoRoot, 'bin', 'switchboard.js');

/** Build the CLI bundle once if a test runs before `npm run build`. */
export function ensureBuilt(): void {
  if (existsSync(join(repoRoot, 'out', 'cli', 'main.cjs'))) return;
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs'), 'node'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('build failed');
}

export function tempHome(prefix = 'sb-home-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(home: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cliPath, ...args], { env: { ...process.env, SWITCHBOARD_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/**
 * The CLI at a terminal of its own (a pty), as a person runs it: answers `answer` to a `[y/N]` question if it asks
 * one. stdout and stderr arrive merged, as on a terminal, with `\n` line ends.
 */
export async function runCliAtTerminal(home: string, args: string[], answer?: string): Promise<{ status: number; output: string }> {
  const { spawn: spawnPty } = await import('node-pty');
  return new Promise((done) => {
    const pty = spawnPty(process.execPath, [cliPath, ...args], { env: { ...process.env, SWITCHBOARD_HOME: home } as Record<string, string>, cols: 200, rows: 40 });
    let output = '';
    let asked = false;
    pty.onData((d) => {
      output += d;
      if (!asked && answer !== undefined && /\[y\/N\] $/.test(output)) {
        asked = true;
        pty.write(`${answer}\r`);
      }
    });
    pty.onExit(({ exitCode }) => done({ status: exitCode, output: output.replace(/\r\n/g, '\n') }));
  });
}

/** `switchboard call TOOL ARGS --json` against the profile's running Core; throws with its stderr when it fails. */
export async function callTool(home: string, tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await runCli(home, ['call', tool, JSON.stringify(args), '--json']);
  if (r.status !== 0) throw new Error(`${tool} ${JSON.stringify(args)} failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

export interface Served {
  url: string;
  openUrl: string;
  token: string;
  /** The approver secret from the printed URL's #fragment. */
  approver: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Start `switchboard serve` on a free port and wait for its URL. */
export function startServe(home: string, env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [cliPath, 'serve', '--port', '0'], { env: { ...process.env, SWITCHBOARD_HOME: home, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 20_000);
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${err.trim()}`));
    });
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      // The printed URL ends in #approver=… (the window's approver secret); the token stops before it.
      const m = /serving at (http:\/\/\S+)\?token=([^\s#]+)(#\S+)?\s/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      resolve({
        url: m[1]!,
        token: m[2]!,
        openUrl: `${m[1]}?token=${m[2]}${m[3] ?? ''}`,
        approver: /#approver=(\S+)/.exec(m[3] ?? '')?.[1] ?? '',
        child,
        stop: () =>
          new Promise((res) => {
            if (child.exitCode !== null) return res();
            child.once('exit', () => res());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
