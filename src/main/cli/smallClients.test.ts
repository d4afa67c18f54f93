// The CLI's client commands load only what they use: `call`, `targets`, `approvals` and `plugins` never load a
// backend library or the Core; `mcp` loads the launcher and the bridge's own bundle, and neither zod nor Node's fetch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  binPath,
  cliPath,
  ensureBuilt,
  runCli,
  runCliAtTerminal,
  startServe,
  tempHome,
  type Served,
} from '../../../scripts/cliHarness.js';

/** Libraries only the Core needs (backends, the approval parser); a client command that loads one is too big. */
const coreOnly = /\/node_modules\/(ssh2|dockerode|node-pty|web-tree-sitter|tree-sitter-bash|ssh-config|tar-stream)\//;
/** The backends' own libraries: `approvals check` needs the shell parser, never these. */
const backendOnly = /\/node_modules\/(ssh2|dockerode|node-pty|ssh-config|tar-stream)\//;
const fromNodeModules = (m: string): boolean => m.includes('/node_modules/');

let home: string;
let served: Served;
/** A --require script that writes every CommonJS module the process loaded to a file when it exits. */
let preload: string;
/** The same, with Node's own modules (process.moduleLoadList) beside them. */
let builtinsPreload: string;
const loadedFile = (name: string): string => join(home, `${name}.loaded.json`);
const tracing = (name: string): Record<string, string> => ({
  NODE_OPTIONS: `--require ${preload}`,
  SB_TEST_LOADED: loadedFile(name),
});
const loaded = (name: string): string[] => JSON.parse(readFileSync(loadedFile(name), 'utf8')) as string[];

beforeAll(async () => {
  ensureBuilt();
  home = tempHome('sb-small-');
  preload = join(home, 'preload.cjs');
  // At exit, and at SIGTERM too (a serve stopped by a signal is written before its own handler runs).
  writeFileSync(
    preload,
    "const w = () => require('node:fs').writeFileSync(process.env.SB_TEST_LOADED, " +
      "JSON.stringify(Object.keys(require.cache)));\nprocess.on('exit', w);\nprocess.on('SIGTERM', w);\n",
  );
  builtinsPreload = join(home, 'builtins.cjs');
  writeFileSync(
    builtinsPreload,
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.SB_TEST_LOADED, JSON.stringify(" +
      '{ modules: Object.keys(require.cache), builtins: process.moduleLoadList })));\n',
  );
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${home} }\n`);
  served = await startServe(home);
}, 60_000);

afterAll(async () => {
  await served?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('small clients', () => {
  it('`switchboard call` runs a tool call without loading the Core or a backend library', async () => {
    const r = await runCli(
      home,
      ['call', 'terminal', JSON.stringify({ command: 'echo small-client' })],
      tracing('call'),
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('small-client\n');
    const modules = loaded('call');
    expect(modules.some((m) => m.endsWith('/out/cli/commands/call.cjs'))).toBe(true);
    expect(modules.filter((m) => coreOnly.test(m) || m.endsWith('/serve.cjs'))).toEqual([]);
    // One file to read and compile: the libraries it uses (zod, ws, commander) are inside its bundle.
    expect(modules.filter(fromNodeModules)).toEqual([]);
  });

  /**
   * `switchboard mcp` started as `command args`, once it bridged initialize: the process, and a promise of its exit
   * status once stdin is ended.
   */
  async function bridgeInitialize(
    command: string,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ pid: number; end: () => Promise<number | null> }> {
    const mcp = spawn(command, args, {
      env: { ...process.env, SWITCHBOARD_HOME: home, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => mcp.once('exit', resolve));
    const answer = new Promise<string>((resolve) => mcp.stdout.setEncoding('utf8').once('data', resolve));
    mcp.stdin.write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      }) + '\n',
    );
    expect(JSON.parse(await answer)).toMatchObject({ id: 1, result: { serverInfo: { name: expect.any(String) } } });
    return { pid: mcp.pid!, end: () => (mcp.stdin.end(), exited) };
  }

  const rssKb = (pid: number): number =>
    Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);

  it('`switchboard mcp` is one Node process, within 10 MB of an idle `node`, after initialize', async () => {
    const mcp = await bridgeInitialize(binPath, ['mcp']);
    // bin/switchboard execs node: the client's child is the bridge itself, no shell behind it.
    expect(readlinkSync(`/proc/${mcp.pid}/exe`)).toBe(readlinkSync(`/proc/${process.pid}/exe`));
    // An idle node, measured once it has started (under load that takes a while).
    const idle = spawn(process.execPath, ['-e', "process.stdout.write('up'); setTimeout(() => {}, 10000)"]);
    await new Promise((r) => idle.stdout.once('data', r));
    const [bridge, node] = [rssKb(mcp.pid), rssKb(idle.pid!)];
    idle.kill();
    expect(bridge).toBeGreaterThan(0);
    expect(bridge - node).toBeLessThan(10 * 1024);
    expect(await mcp.end()).toBe(0);
  });

  it('`node bin/switchboard.js mcp` loads the launcher and the bridge bundle, no program or library file', async () => {
    const mcp = await bridgeInitialize(process.execPath, [cliPath, 'mcp'], {
      NODE_OPTIONS: `--require ${builtinsPreload}`,
      SB_TEST_LOADED: loadedFile('mcp'),
    });
    expect(await mcp.end()).toBe(0);
    const { modules, builtins } = JSON.parse(readFileSync(loadedFile('mcp'), 'utf8')) as {
      modules: string[];
      builtins: string[];
    };
    expect(modules.filter((m) => m.includes('/out/'))).toEqual([
      expect.stringMatching(/\/out\/cli\/main\.cjs$/),
      expect.stringMatching(/\/out\/cli\/mcpBridge\.cjs$/),
    ]);
    expect(modules.filter(fromNodeModules)).toEqual([]);
    // Node's fetch (undici, about 12 MB) and web streams (until a call sends progress) stay unloaded; an empty node
    // has webstreams' util and queuing strategies already.
    expect(builtins.filter((b) => /undici|webstreams\/(readable|transform|writable)stream/.test(b))).toEqual([]);
  });

  /** Run one CLI command with module tracing; it must succeed and load its own bundle, not serve's or `heavy`. */
  /** `person`: run it at a terminal of its own, as a person's command must be (stderr then shows in stdout). */
  async function runSmall(
    name: string,
    args: string[],
    bundle: string,
    heavy: RegExp = coreOnly,
    person = false,
  ): Promise<string> {
    const r = await (person ? runCliAtTerminal : runCli)(home, args, tracing(name));
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const modules = loaded(name);
    expect(modules.some((m) => m.endsWith(`/out/cli/commands/${bundle}.cjs`))).toBe(true);
    expect(modules.filter((m) => heavy.test(m) || m.endsWith('/serve.cjs'))).toEqual([]);
    return r.stdout;
  }

  it('`switchboard targets` registers, lists, shows and removes without loading a backend library', async () => {
    await runSmall(
      'targets-register',
      ['targets', 'register', 'small-rt', '--backend', 'local', '--cwd', home],
      'targets',
    );
    const listed = JSON.parse(await runSmall('targets-list', ['targets', 'list', '--json'], 'targets')) as
      | { targets?: { name: string }[] }
      | { name: string }[];
    const names = (Array.isArray(listed) ? listed : (listed.targets ?? [])).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['local', 'small-rt']));
    expect(await runSmall('targets-show', ['targets', 'show', 'small-rt'], 'targets')).toContain('small-rt');
    await runSmall('targets-remove', ['targets', 'remove', 'small-rt'], 'targets');
  });

  it(
    '`switchboard approvals` lists without the shell parser, ' + 'and `approvals check` loads no backend library',
    async () => {
      await runSmall('approvals-list', ['approvals', 'list'], 'approvals');
      expect(await runSmall('approvals-check', ['approvals', 'check', 'rm -rf /'], 'approvals', backendOnly)).toMatch(
        /would be refused|would ask/,
      );
    },
  );

  it('`switchboard plugins list` runs without loading a backend library', async () => {
    await runSmall('plugins-list', ['plugins', 'list'], 'plugins', coreOnly, true);
  });

  it(
    'the Core (`serve`) has zod, yaml, ws and commander inside ' + 'its bundle instead of loading their files',
    async () => {
      const own = tempHome('sb-small-serve-');
      try {
        writeFileSync(join(own, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${own} }\n`);
        const serve = await startServe(own, tracing('serve'));
        await serve.stop();
        const modules = loaded('serve');
        expect(modules.some((m) => m.endsWith('/out/cli/commands/serve.cjs'))).toBe(true);
        expect(modules.filter((m) => /\/node_modules\/(zod|yaml|ws|commander)\//.test(m))).toEqual([]);
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    },
  );
});
