// The bubblewrap command line for one sandbox (pure), and running it: a command, a background process, a pty shell.
// @ts-check
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { readdirSync, readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { bufferedStream } from './streams.mjs';

/** @typedef {import('../../../src/shared/plugins.js').PluginStream} PluginStream */
/** @typedef {import('../../../src/shared/plugins.js').PluginExecResult} PluginExecResult */

/** Where the private writable folder appears inside every sandbox. */
export const WORKSPACE = '/workspace';

/** Top-level folders the sandbox gets fresh instead of the host's (/run holds sockets such as the Docker daemon's). */
const PRIVATE_TOP = new Set(['proc', 'dev', 'tmp', 'run', WORKSPACE.slice(1)]);

/** The host's `/`, entry by entry: folders are bound read-only, symlinks (`/bin -> usr/bin`) recreated. */
export function hostRoot() {
  return readdirSync('/', { withFileTypes: true }).flatMap((e) => {
    if (PRIVATE_TOP.has(e.name)) return [];
    const path = `/${e.name}`;
    if (e.isSymbolicLink()) return [{ path, link: readlinkSync(path) }];
    if (e.isDirectory()) return [{ path }];
    return [];
  });
}

/** A bind written `PATH` or `HOST_PATH:SANDBOX_PATH`. */
export function parseBind(/** @type {string} */ text) {
  const at = text.indexOf(':');
  return at < 0 ? { host: text, inside: text } : { host: text.slice(0, at), inside: text.slice(at + 1) };
}

/**
 * The bwrap arguments for one run. The root is a read-only tmpfs holding the host's top-level folders read-only;
 * /workspace and /tmp are the identity's own folders; `hide` paths (other identities' folders, the profile) are
 * covered by an empty tmpfs; no network unless `share_network`.
 * @param {{
 *   root: { path: string; link?: string }[];
 *   workspace: string; tmp: string; hide: string[];
 *   binds: string[]; share_network: boolean;
 *   cwd: string; env: Record<string, string>;
 *   session: boolean;
 * }} o `session`: start a new session (no controlling terminal: a command cannot type into the caller's tty).
 * @param {string[]} argv the program and its arguments inside the sandbox
 */
export function bwrapArgs(o, argv) {
  const a = [];
  for (const e of o.root) a.push(...(e.link ? ['--symlink', e.link, e.path] : ['--ro-bind', e.path, e.path]));
  a.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/run');
  a.push('--bind', o.workspace, WORKSPACE, '--bind', o.tmp, '/tmp');
  for (const h of o.hide) a.push('--tmpfs', h);
  for (const b of o.binds.map(parseBind)) a.push('--bind', b.host, b.inside);
  a.push('--remount-ro', '/');
  a.push('--unshare-all', '--hostname', 'sandbox', '--die-with-parent');
  if (o.share_network) a.push('--share-net', '--ro-bind-try', '/run/systemd/resolve', '/run/systemd/resolve');
  if (o.session) a.push('--new-session');
  a.push('--clearenv');
  for (const [k, v] of Object.entries(o.env)) a.push('--setenv', k, v);
  a.push('--chdir', o.cwd, '--', ...argv);
  return a;
}

/** The exit code a shell would report: the status, or 128 + the signal's number. */
function exitCode(/** @type {number | null} */ code, /** @type {NodeJS.Signals | null} */ signal) {
  if (code !== null) return code;
  return 128 + (signal ? (constants.signals[signal] ?? 9) : 9);
}

/** Kill a detached child's whole process group (bwrap, and through --die-with-parent everything inside). */
function killGroup(/** @type {import('node:child_process').ChildProcess} */ child) {
  try {
    if (child.pid) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Output kept of one command; beyond it the rest is dropped and the cut is said (the Core trims further). */
const MAX_OUTPUT = 8 * 1024 * 1024;

/**
 * Runs bwrap to the end: stdout and stderr merged, the whole group killed at the deadline.
 * @param {string[]} args @param {{ stdin?: string; timeout_ms: number }} opts
 * @param {Set<() => void>} live kill functions of running children, for cleanup
 * @returns {Promise<PluginExecResult>}
 */
export function runToEnd(args, opts, live) {
  return new Promise((resolve, reject) => {
    const child = spawn('bwrap', args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    const kill = () => killGroup(child);
    live.add(kill);
    let output = '';
    let cut = false;
    let timedOut = false;
    const take = (/** @type {Buffer} */ b) => {
      if (output.length >= MAX_OUTPUT) return void (cut = true);
      output += b.toString('utf8');
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeout_ms);
    child.on('error', (err) => {
      clearTimeout(timer);
      live.delete(kill);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(kill);
      if (cut) output += `\n[bwrap plugin: output cut at ${MAX_OUTPUT} bytes]\n`;
      resolve(timedOut ? { output, exit_code: 124, timed_out: true } : { output, exit_code: exitCode(code, signal) });
    });
    // A child that exits before reading its stdin: EPIPE is expected, its exit says what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.stdin ?? '');
  });
}

/**
 * Starts bwrap in the background with stdin open; its output streams until it exits.
 * @param {string[]} args @param {Set<() => void>} live
 * @returns {PluginStream}
 */
export function runInBackground(args, live) {
  const child = spawn('bwrap', args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const kill = () => killGroup(child);
  live.add(kill);
  const s = bufferedStream({
    write: (data) => void child.stdin.write(data),
    kill: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('close', () => resolve());
        kill();
      }),
  });
  child.stdout.on('data', (/** @type {Buffer} */ b) => s.data(b.toString('utf8')));
  child.stderr.on('data', (/** @type {Buffer} */ b) => s.data(b.toString('utf8')));
  child.stdin.on('error', () => undefined); // EPIPE from a child that exited first: its exit says why
  child.on('error', (err) => {
    live.delete(kill);
    s.exit(null, `bwrap did not start: ${err.message}`);
  });
  child.on('close', (code, signal) => {
    live.delete(kill);
    s.exit(exitCode(code, signal));
  });
  return s.stream;
}

/** @typedef {{ spawn(file: string, args: string[],
 *     opts: { name: string; cols: number; rows: number; cwd: string; env: Record<string, string> }): {
 *   onData(l: (d: string) => void): void; onExit(l: (e: { exitCode: number; signal?: number }) => void): void;
 *   write(d: string): void; resize(c: number, r: number): void; kill(signal?: string): void; pid: number } }} NodePty
 * */

/** @type {Promise<NodePty | undefined> | undefined} */
let ptyModule;

/**
 * node-pty, which every Switchboard install ships: looked up from this plugin's folder first (a plugin may bring its
 * own), then from the plugin host's program, which lives inside the Switchboard install.
 * @returns {Promise<NodePty | undefined>}
 */
export function loadPty() {
  ptyModule ??= (async () => {
    const from = [
      import.meta.url,
      process.argv[1] ? pathToFileURL(process.argv[1]).href : undefined,
      pathToFileURL(`${process.cwd()}/`).href,
    ];
    for (const base of from) {
      if (!base) continue;
      try {
        return /** @type {NodePty} */ (createRequire(base)('node-pty'));
      } catch {
        // Not reachable from there; try the next place.
      }
    }
    return undefined;
  })();
  return ptyModule;
}

/**
 * bwrap on a real pty: resize reaches the programs inside (SIGWINCH), and they see a terminal.
 * @param {NodePty} pty @param {string[]} args @param {{ cols: number; rows: number }} size @param {Set<() => void>}
 * live @returns {PluginStream}
 */
export function runOnPty(pty, args, size, live) {
  const env = /** @type {Record<string, string>} */ ({ PATH: process.env.PATH ?? '/usr/bin:/bin' });
  const p = pty.spawn('bwrap', args, { name: 'xterm-256color', cols: size.cols, rows: size.rows, cwd: '/', env });
  const kill = () => {
    try {
      p.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  };
  live.add(kill);
  const s = bufferedStream({
    write: (data) => p.write(data),
    resize: (cols, rows) => p.resize(cols, rows),
    kill,
  });
  p.onData((d) => s.data(d));
  p.onExit(({ exitCode: code, signal }) => {
    live.delete(kill);
    s.exit(signal ? 128 + signal : code);
  });
  return s.stream;
}
