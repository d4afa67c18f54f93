// A real MCP client against a real Core: the MCP Inspector's CLI (@modelcontextprotocol/inspector) lists the tools
// over HTTP with --strict (no portability warning about any schema), calls a tool through `switchboard mcp --profile`
// with no SWITCHBOARD_HOME (as Codex and the Inspector start servers), and shows the no_core answer without a Core.
// The Inspector is not a dependency of Switchboard: the test runs it where it is installed (node_modules, or the
// launcher MCP_INSPECTOR names) and says so when it is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { binPath, servedProfile, tempHome } from '../../../scripts/cliHarness.js';

/** The Inspector's launcher (its package's bin), or undefined when it is not installed here. */
function inspectorBin(): string | undefined {
  if (process.env.MCP_INSPECTOR) return process.env.MCP_INSPECTOR;
  try {
    const pkg = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json');
    const bin = join(dirname(pkg), 'clients', 'launcher', 'build', 'index.js');
    return existsSync(bin) ? bin : undefined;
  } catch {
    // not installed: said below
    return undefined;
  }
}

const inspector = inspectorBin();
if (!inspector)
  console.warn(
    'mcpInspector.test.ts skipped: the MCP Inspector is not installed here ' +
      '(npm i -D @modelcontextprotocol/inspector@2.12.0, or MCP_INSPECTOR=<its clients/launcher/build/index.js>)',
  );

/** The Inspector's CLI with `args`: its exit status, stdout, and stderr without its notes on where it keeps secrets. */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [inspector!, '--cli', ...args], {
      env: { ...process.env, MCP_INSPECTOR_SECRET_STORE: 'memory', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('close', (status) => {
      const notes = err.split('\n').filter((l) => !l.startsWith('[mcp-inspector]'));
      resolve({ status, out, err: notes.join('\n').trim() });
    });
  });
}

describe.skipIf(!inspector)('the MCP Inspector (CLI) as the client', () => {
  const { home, served: core } = servedProfile('sb-inspector-', { beforeAll, afterAll }, true);

  it('--strict over HTTP: every tool listed, no schema it warns about', async () => {
    const r = await run([
      '--strict',
      '--method',
      'tools/list',
      '--transport',
      'http',
      '--server-url',
      `${core().url}mcp`,
      '--header',
      `Authorization: Bearer ${core().token}`,
    ]);
    // With a problem it would print each (path, issue, fix) and a count; with none, nothing.
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    const { tools } = JSON.parse(r.out) as { tools: Array<{ name: string }> };
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['terminal', 'process', 'list_targets']));
  }, 60_000);

  it('over stdio, started without SWITCHBOARD_HOME: `switchboard mcp --profile` finds the Core', async () => {
    const env = { ...process.env } as Record<string, string>;
    delete env.SWITCHBOARD_HOME;
    const r = await run(
      [
        binPath,
        'mcp',
        '--profile',
        home,
        '--method',
        'tools/call',
        '--tool-name',
        'terminal',
        '--tool-arg',
        'command=echo inspected',
      ],
      env,
    );
    expect(r.status).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ structuredContent: { output: 'inspected\n' } });
  }, 60_000);

  it('over stdio with no Core: the client shows the no_core answer, not a closed connection', async () => {
    const none = tempHome('sb-inspector-none-');
    try {
      const r = await run([binPath, 'mcp', '--profile', none, '--method', 'tools/list']);
      expect(r.out + r.err).toMatch(/no_core: no Switchboard Core is running \(no .*core\.json\) — start one with/);
    } finally {
      rmSync(none, { recursive: true, force: true });
    }
  }, 60_000);
});
