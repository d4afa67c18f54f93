// Test helper: writes a small plugin into a profile's plugins/ — a sandbox-less backend that runs `sh -c` on this
// machine — with switches for misbehaving (throw on load, throw, hang, spin or exit in exec).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ManifestFlags, PluginFlags } from '../../../shared/plugins.js';

export interface TestPluginOptions {
  /** Folder and plugin name. */
  name: string;
  /** The backend names it registers (default: [name]). */
  backends?: string[];
  flags?: PluginFlags;
  /** The manifest's `flags` (what it asks for); by default the powers `flags` claim. */
  manifest?: ManifestFlags;
  /** Throw from register(ctx). */
  throwOnLoad?: boolean;
  /** Offer read_file/write_file/stat/home of its own (default: no — the Core's exec-based ones are used). */
  files?: boolean;
  /** Offer open_shell and spawn_background (pipes, no pty); default when flags.supports_streams. */
  streams?: boolean;
  version?: string;
  /** Declare the backend's own `probe(spec)` (the health checks' look without an environment). */
  probe?: boolean;
  /** Append one line per create_environment, exec and probe call to this file ("create", "exec", "probe"). */
  countTo?: string;
}

/**
 * Commands containing these words make the plugin misbehave: throw, never answer (its host stays responsive),
 * call process.exit, or spin on the host's event loop (for a minute: a test that fails leaves no endless spinner)
 * after starting a `sleep` in the host's own process group.
 */
export const misbehave = {
  throw: '__SB_PLUGIN_THROW__',
  hang: '__SB_PLUGIN_HANG__',
  exit: '__SB_PLUGIN_EXIT__',
  spin: '__SB_PLUGIN_SPIN__',
};

const moduleText = (o: TestPluginOptions): string => {
  const options = {
    backends: o.backends ?? [o.name],
    flags: o.flags ?? {},
    throwOnLoad: !!o.throwOnLoad,
    files: !!o.files,
    streams: o.streams ?? !!o.flags?.supports_streams,
    probe: !!o.probe,
    countTo: o.countTo ?? '',
  };
  return `
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { homedir } from 'node:os';

const O = ${JSON.stringify(options)};
const count = (what) => { if (O.countTo) appendFileSync(O.countTo, what + '\\n'); };
const M = ${JSON.stringify(misbehave)};

function run(command, opts) {
  count('exec');
  return new Promise((resolve, reject) => {
    if (command.includes(M.throw)) return reject(new Error('exec blew up on purpose'));
    if (command.includes(M.hang)) return;
    if (command.includes(M.exit)) process.exit(7);
    if (command.includes(M.spin)) {
      spawn('sleep', ['120'], { stdio: 'ignore' });
      for (const end = Date.now() + 60000; Date.now() < end;);
    }
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let output = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch {}
    }, opts.timeout_ms);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ output, exit_code: code ?? 137, timed_out: timedOut });
    });
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
  });
}

function stream(command, opts) {
  const child = spawn('/bin/sh', ['-c', command], {
    cwd: opts.cwd,
    env: opts.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.on('error', () => {});
  return {
    on_data: (l) => { child.stdout.setEncoding('utf8').on('data', l); child.stderr.setEncoding('utf8').on('data', l); },
    on_exit: (l) => child.on('close', (code) => l(code)),
    write: (d) => child.stdin.write(d),
    kill: () => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} },
  };
}

export function register(ctx) {
  if (O.throwOnLoad) throw new Error('register blew up on purpose');
  ctx.log('loading');
  for (const name of O.backends) {
    ctx.registerBackendProvider({
      name,
      display_name: 'Test sandbox ' + name,
      fields: [
        { key: 'root', type: 'path', label: 'Root', help: 'a folder the target works in', flag: '--root' },
        { key: 'size', type: 'select', label: 'Size', help: 'how big', options: ['small', 'large'] },
      ],
      flags: O.flags,
      is_available: () => true,
      check_requirements: (spec) => (spec.root === '/nonexistent' ? ['root /nonexistent does not exist'] : []),
      doctor_checks: () => [{ name: 'sh', ok: true, detail: '/bin/sh' }],
      ...(O.probe
        ? {
            probe: async (spec) => (
              count('probe'),
              spec.root === '/nonexistent' ? { ok: false, problem: 'no such root' } : { ok: true, detail: 'looked' }
            ),
          }
        : {}),
      create_environment: () => {
        count('create');
        const env = { exec: run };
        if (O.streams) {
          env.open_shell = (o) => stream('exec /bin/sh -i 2>&1', o);
          env.spawn_background = (command, o) => stream(command, o);
        }
        if (O.files) {
          env.home = async () => homedir();
          env.read_file = async (p) => readFile(p);
          env.write_file = async (p, data) => {
            await mkdir(dirname(p), { recursive: true });
            await writeFile(p, data);
          };
          env.stat = async (p) => {
            try {
              const s = await stat(p);
              return { type: s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other', size: s.size };
            } catch { return { type: 'missing', size: 0 }; }
          };
        }
        return env;
      },
    });
  }
}
`;
};

/** Write the plugin folder; returns its path. */
export function writeTestPlugin(home: string, o: TestPluginOptions): string {
  const dir = join(home, 'plugins', o.name);
  mkdirSync(dir, { recursive: true });
  // The manifest asks for the powers its flags claim (the Core holds a backend to its manifest's).
  const f = o.flags ?? {};
  const asked: Record<string, unknown> =
    o.manifest ??
    Object.fromEntries(
      (['is_remote', 'is_container', 'skip_container_guards', 'supports_streams', 'supports_pty'] as const)
        .filter((k) => f[k] !== undefined)
        .map((k) => [k, f[k]]),
    );
  const flagsLine = Object.keys(asked).length ? `flags: ${JSON.stringify(asked)}\n` : '';
  writeFileSync(
    join(dir, 'plugin.yaml'),
    `name: ${o.name}\nversion: ${o.version ?? '1.0.0'}\nkind: backend\nentry: index.mjs\n` +
      `description: a test plugin\n${flagsLine}`,
  );
  writeFileSync(join(dir, 'index.mjs'), moduleText(o));
  return dir;
}
