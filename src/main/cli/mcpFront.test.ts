// `switchboard mcp` answers initialize before it loads the MCP SDK (mcpFront.ts), and a client sees exactly what the
// SDK Server answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer } from '../core/mcp/mcpServer.js';
import { cliPath, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

let home: string;
let served: Served;
let runs = 0;
/**
 * A --require script that notes, at the process's first write on stdout, whether the mcp bundle (the SDK) was loaded.
 */
let preload: string;

beforeAll(async () => {
  ensureBuilt();
  home = tempHome('sb-mcp-front-');
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${home} }\n`);
  preload = join(home, 'first-write.cjs');
  writeFileSync(
    preload,
    "const fs = require('node:fs');\nconst write = process.stdout.write.bind(process.stdout);\nlet first = true;\n" +
      'process.stdout.write = (...a) => {\n  if (first) {\n    first = false;\n' +
      '    fs.writeFileSync(process.env.SB_TEST_FIRST_WRITE, ' +
      "JSON.stringify(Object.keys(require.cache).some((m) => m.endsWith('/out/cli/commands/mcp.cjs'))));\n" +
      '  }\n  return write(...a);\n};\n',
  );
  served = await startServe(home);
}, 60_000);

afterAll(async () => {
  await served?.stop();
  rmSync(home, { recursive: true, force: true });
});

/** Environment for a `switchboard mcp` whose first stdout write is noted in the returned file. */
function traced(): { env: Record<string, string>; sdkLoadedAtFirstWrite: () => boolean } {
  const file = join(home, `first-write-${++runs}.json`);
  return {
    env: {
      ...(process.env as Record<string, string>),
      SWITCHBOARD_HOME: home,
      NODE_OPTIONS: `--require ${preload}`,
      SB_TEST_FIRST_WRITE: file,
    },
    sdkLoadedAtFirstWrite: () => {
      expect(existsSync(file)).toBe(true);
      return JSON.parse(readFileSync(file, 'utf8')) as boolean;
    },
  };
}

const line = (m: object): string => JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n';
const clientInfo = { name: 'test', version: '1' };
const initialize = (id: number | string, protocolVersion: string, capabilities: object = {}): string =>
  line({ id, method: 'initialize', params: { protocolVersion, capabilities, clientInfo } });
const ping = (id: number | string): string => line({ id, method: 'ping' });

/** `switchboard mcp` given `input` in one write and then the end of stdin: all it wrote, and how it ended. */
async function runMcp(
  input: string,
): Promise<{ stdout: string; stderr: string; status: number | null; sdkLoadedAtFirstWrite: () => boolean }> {
  const t = traced();
  const child = spawn(process.execPath, [cliPath, 'mcp'], { env: t.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin.end(input);
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { stdout, stderr, status, sdkLoadedAtFirstWrite: t.sdkLoadedAtFirstWrite };
}

/**
 * What the SDK Server, made as `switchboard mcp` makes it, writes on its stdio transport for `input` (no Core: no tool
 * runs).
 */
async function sdkAnswers(input: string): Promise<string> {
  const stdin = new PassThrough();
  let stdout = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      stdout += chunk.toString('utf8');
      done();
    },
  });
  const server = createMcpServer(() => Promise.reject(new Error('no tool runs in this comparison')));
  await server.connect(new StdioServerTransport(stdin, sink));
  stdin.write(input);
  // Every answer here is made without I/O: a few turns of the event loop see them all written.
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  await server.close();
  return stdout;
}

/**
 * The lines written for each request id, in order. The order between answers to different requests is left free (by
 * JSON-RPC, and by the SDK itself: an unknown method is answered at once, ahead of requests read before it in the same
 * chunk, so an initialize the front answered now comes before it).
 */
function answersById(out: string): Record<string, string[]> {
  const byId: Record<string, string[]> = {};
  for (const l of out.split('\n').filter(Boolean))
    (byId[JSON.stringify((JSON.parse(l) as { id?: unknown }).id)] ??= []).push(l);
  return byId;
}

describe('switchboard mcp answers as the SDK Server does', () => {
  const malformed = '{"jsonrpc":"2.0","id":9,"method":\n';
  const cases: Array<{ name: string; input: string; front: boolean }> = [
    ...[...SUPPORTED_PROTOCOL_VERSIONS, '1999-01-01', ''].map((v) => ({
      name: `initialize for protocol version "${v}"`,
      input: initialize(1, v) + ping(2),
      front: true,
    })),
    {
      name:
        'a session: capabilities, a malformed line, tools/list, a second initialize, an unknown method, ' +
        'a bad tools/call',
      input:
        initialize('init', '2025-06-18', { roots: { listChanged: true }, sampling: {}, elicitation: {} }) +
        line({ method: 'notifications/initialized' }) +
        malformed +
        line({ id: 2, method: 'tools/list', params: {} }) +
        initialize(3, '2024-11-05') +
        line({ id: 4, method: 'no/such/method' }) +
        line({ id: 5, method: 'tools/call', params: {} }) +
        ping(6),
      front: true,
    },
    { name: 'a malformed first line', input: malformed + initialize(1, '2025-06-18') + ping(2), front: false },
    {
      name: 'an initialize with _meta',
      input:
        line({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo, _meta: { progressToken: 1 } },
        }) + ping(2),
      front: false,
    },
    {
      name: 'an initialize the SDK refuses (a capability of the wrong shape)',
      input: initialize(1, '2025-06-18', { roots: { listChanged: 'yes' } }) + ping(2),
      front: false,
    },
    {
      name: 'an initialize with a field JSON-RPC does not have',
      input:
        line({
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo },
          extra: 1,
        }) + ping(2),
      front: false,
    },
  ];

  for (const c of cases) {
    it(`${c.name}: the same answers, byte for ` +
      `byte, ${c.front ? 'the first before the SDK is loaded' : 'all from the SDK Server'}`, async () => {
      const expected = await sdkAnswers(c.input);
      expect(expected).not.toBe('');
      const r = await runMcp(c.input);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(answersById(r.stdout)).toEqual(answersById(expected));
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.sdkLoadedAtFirstWrite()).toBe(!c.front);
    }, 60_000);
  }
});

describe('switchboard mcp against a real Core', () => {
  it('serves the SDK client: initialize (answered before the SDK is loaded), tools/list, tools/call', async () => {
    const t = traced();
    const client = new Client({ name: 'test-front', version: '1' });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [cliPath, 'mcp'], env: t.env, stderr: 'pipe' }),
    );
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'switchboard' });
      expect(client.getInstructions()).toMatch(/list_targets/);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('terminal');
      const called = await client.callTool({ name: 'terminal', arguments: { command: 'echo through-the-front' } });
      expect((called.structuredContent as { output: string }).output).toBe('through-the-front\n');
      expect(t.sdkLoadedAtFirstWrite()).toBe(false);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('answers requests written right behind initialize, in the same write, in order', async () => {
    const t = traced();
    const child = spawn(process.execPath, [cliPath, 'mcp'], { env: t.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const answers: Array<Record<string, unknown>> = [];
    let buffered = '';
    const got4 = new Promise<void>((resolve) =>
      child.stdout.setEncoding('utf8').on('data', (d: string) => {
        buffered += d;
        for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
          answers.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>);
          buffered = buffered.slice(nl + 1);
        }
        if (answers.some((a) => a.id === 4)) resolve();
      }),
    );
    child.stdin.write(
      initialize(1, '2025-06-18') +
        line({ method: 'notifications/initialized' }) +
        line({ id: 2, method: 'tools/list', params: {} }) +
        ping(3) +
        line({ id: 4, method: 'tools/call', params: { name: 'terminal', arguments: { command: 'echo pipelined' } } }),
    );
    await got4;
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers[0]).toMatchObject({
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'switchboard' } },
    });
    expect((answers[1]!.result as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name)).toContain(
      'terminal',
    );
    expect(answers[2]).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect((answers[3]!.result as { structuredContent: { output: string } }).structuredContent.output).toBe(
      'pipelined\n',
    );
    expect(t.sdkLoadedAtFirstWrite()).toBe(false);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 60_000);

  it('answers an initialize that arrives in two pieces', async () => {
    const t = traced();
    const child = spawn(process.execPath, [cliPath, 'mcp'], { env: t.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    const closed = new Promise((resolve) => child.once('close', resolve));
    const request = initialize(1, '2025-03-26');
    child.stdin.write(request.slice(0, 20));
    // Not a timing assertion: the pause only makes it likely that the two pieces are read apart.
    await new Promise((r) => setTimeout(r, 300));
    child.stdin.end(request.slice(20) + ping(2));
    expect(await closed).toBe(0);
    expect(stdout).toBe(await sdkAnswers(request + ping(2)));
    expect(t.sdkLoadedAtFirstWrite()).toBe(false);
  }, 60_000);

  it('writes the answer of a call still running when stdin ends ' +
    '(ended before the SDK was loaded), then exits 0', async () => {
    const r = await runMcp(
      initialize(1, '2025-06-18') +
        line({
          id: 2,
          method: 'tools/call',
          params: { name: 'terminal', arguments: { command: 'sleep 1; echo late' } },
        }),
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: number; result: { structuredContent?: { output: string } } });
    expect(answers.map((a) => a.id)).toEqual([1, 2]);
    expect(answers[1]!.result.structuredContent?.output).toBe('late\n');
    expect(r.sdkLoadedAtFirstWrite()).toBe(false);
  }, 60_000);
});
