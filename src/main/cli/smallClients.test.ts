// The CLI's client commands load only what they use: `call` and `mcp` never load a backend library or the Core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

/** Libraries only the Core needs (backends, the approval parser); a client command that loads one is too big. */
const coreOnly = /\/node_modules\/(ssh2|dockerode|node-pty|web-tree-sitter|tree-sitter-bash|ssh-config|tar-stream)\//;

let home: string;
let served: Served;
/** A --require script that writes every CommonJS module the process loaded to a file when it exits. */
let preload: string;
const loadedFile = (name: string): string => join(home, `${name}.loaded.json`);
const tracing = (name: string): Record<string, string> => ({ NODE_OPTIONS: `--require ${preload}`, SB_TEST_LOADED: loadedFile(name) });
const loaded = (name: string): string[] => JSON.parse(readFileSync(loadedFile(name), 'utf8')) as string[];

beforeAll(async () => {
  ensureBuilt();
  home = tempHome('sb-small-');
  preload = join(home, 'preload.cjs');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.SB_TEST_LOADED, JSON.stringify(Object.keys(require.cache))));\n");
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${home} }\n`);
  served = await startServe(home);
}, 60_000);

afterAll(async () => {
  await served?.stop();
  rmSync(home, { recursive: true, force: true });
});

describe('small clients', () => {
  it('`switchboard call` runs a tool call without loading the Core or a backend library', async () => {
    const r = await runCli(home, ['call', 'terminal', JSON.stringify({ command: 'echo small-client' })], tracing('call'));
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('small-client\n');
    const modules = loaded('call');
    expect(modules.some((m) => m.endsWith('/out/cli/commands/call.cjs'))).toBe(true);
    expect(modules.filter((m) => coreOnly.test(m) || m.endsWith('/serve.cjs'))).toEqual([]);
  });

  it('`switchboard mcp` answers initialize without loading the Core or a backend library', async () => {
    const mcp = spawn(process.execPath, [cliPath, 'mcp'], { env: { ...process.env, SWITCHBOARD_HOME: home, ...tracing('mcp') }, stdio: ['pipe', 'pipe', 'pipe'] });
    const answer = new Promise<string>((resolve) => mcp.stdout.setEncoding('utf8').once('data', resolve));
    mcp.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }) + '\n');
    expect(JSON.parse(await answer)).toMatchObject({ id: 1, result: { serverInfo: { name: expect.any(String) } } });
    const exited = new Promise((resolve) => mcp.once('exit', resolve));
    mcp.stdin.end();
    await exited;
    const modules = loaded('mcp');
    expect(modules.some((m) => m.endsWith('/out/cli/commands/mcp.cjs'))).toBe(true);
    expect(modules.filter((m) => coreOnly.test(m) || m.endsWith('/serve.cjs'))).toEqual([]);
  });
});
