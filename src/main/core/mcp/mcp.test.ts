import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolNames } from '../../../shared/tools.js';
import { startHost, type Host } from '../../transport/host.js';
import { mcpTools } from './mcpServer.js';

const repo = join(import.meta.dirname, '..', '..', '..', '..');
const bin = join(repo, 'bin', 'switchboard.js');

interface Profile {
  root: string;
  home: string;
  dirs: { a: string; b: string };
}

function profile(): Profile {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-mcp-')));
  const home = join(root, 'home');
  const dirs = { a: join(root, 'a'), b: join(root, 'b') };
  for (const d of [home, dirs.a, dirs.b]) mkdirSync(d);
  writeConfig(home, dirs, false);
  return { root, home, dirs };
}

function writeConfig(home: string, dirs: { a: string; b: string }, withC: boolean): void {
  const lines = [
    'terminal:',
    '  default_target: a',
    '  targets:',
    `    a: { backend: local, cwd: ${dirs.a} }`,
    `    b: { backend: local, cwd: ${dirs.b} }`,
  ];
  if (withC) lines.push(`    c: { backend: local, cwd: ${dirs.a} }`);
  writeFileSync(join(home, 'config.yaml'), lines.join('\n') + '\n');
}

async function waitFor(path: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!existsSync(path)) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${path}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type CallResult = {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
};

/** Call a tool and return its result object; a tool error becomes a rejected promise carrying the text. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallResult;
  const text = r.content[0]?.text ?? '';
  if (r.isError) throw new Error(text);
  const parsed = JSON.parse(text) as Record<string, unknown>;
  expect(r.structuredContent).toEqual(parsed);
  return parsed;
}

/** The checks of issue #4, through any MCP client. */
function checks(label: string, get: () => { client: Client; dirs: { a: string; b: string } }): void {
  describe(`MCP checks over ${label}`, () => {
    const run = `m-${label}`;
    it('lists every tool with schemas derived from the zod contract and honest annotations', async () => {
      const { tools } = await get().client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...toolNames].sort());
      for (const t of tools) {
        expect(t.inputSchema.type).toBe('object');
        expect(t.description).toBeTruthy();
        expect(t.annotations).toBeDefined();
      }
      const term = tools.find((t) => t.name === 'terminal')!;
      expect(
        (term.inputSchema.properties as Record<string, { description?: string }>).execution_target!.description,
      ).toMatch(/list_targets/);
      expect(term.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(tools.find((t) => t.name === 'read_file')!.annotations).toMatchObject({ readOnlyHint: true });
      expect(tools.find((t) => t.name === 'search_files')!.inputSchema.required).toEqual(['pattern', 'target']);
    });

    it('list_targets shows both targets', async () => {
      const r = await tool(get().client, 'list_targets', {});
      expect((r.targets as Array<{ name: string }>).map((t) => t.name)).toEqual(expect.arrayContaining(['a', 'b']));
      expect(r.default_target).toBe('a');
      // Targetless: no invented place (an empty execution_target would read as a target named "").
      expect(r).not.toHaveProperty('execution_target');
      expect(r).not.toHaveProperty('generation');
    });

    it('an unknown tool is a JSON-RPC error (-32602 invalid params), not a tool result', async () => {
      const err = await get()
        .client.callTool({ name: 'no_such_tool', arguments: {} })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(McpError);
      expect(err).toMatchObject({
        code: ErrorCode.InvalidParams,
        message: expect.stringContaining('unknown tool "no_such_tool"'),
      });
    });

    it('the same relative path on two targets reads back different markers', async () => {
      const { client } = get();
      await tool(client, 'write_file', { path: `${run}/marker.txt`, content: 'MARKER-A\n', execution_target: 'a' });
      await tool(client, 'write_file', { path: `${run}/marker.txt`, content: 'MARKER-B\n', execution_target: 'b' });
      const ra = await tool(client, 'read_file', { path: `${run}/marker.txt`, execution_target: 'a' });
      const rb = await tool(client, 'read_file', { path: `${run}/marker.txt`, execution_target: 'b' });
      expect(ra).toMatchObject({ content: '     1\tMARKER-A\n', execution_target: 'a' });
      expect(rb).toMatchObject({ content: '     1\tMARKER-B\n', execution_target: 'b' });
      expect(
        await tool(client, 'patch', {
          path: `${run}/marker.txt`,
          old_string: 'MARKER-B',
          new_string: 'PATCHED-B',
          execution_target: 'b',
        }),
      ).toMatchObject({ replacements: 1 });
      const s = await tool(client, 'search_files', {
        pattern: 'PATCHED',
        target: 'content',
        path: run,
        execution_target: 'b',
      });
      expect(s).toMatchObject({ count: 1, execution_target: 'b' });
      expect(
        await tool(client, 'search_files', { pattern: 'PATCHED', target: 'content', path: run, execution_target: 'a' }),
      ).toMatchObject({ count: 0 });
    });

    it("cd on one target leaves the other's cwd", async () => {
      const { client, dirs } = get();
      const cd = await tool(client, 'terminal', { command: `cd ${run} && pwd`, execution_target: 'a' });
      expect(cd).toMatchObject({ cwd: join(dirs.a, run), exit_code: 0 });
      expect(await tool(client, 'terminal', { command: 'pwd', execution_target: 'b' })).toMatchObject({
        output: `${dirs.b}\n`,
      });
      expect(await tool(client, 'terminal', { command: 'pwd', execution_target: 'a' })).toMatchObject({
        output: `${join(dirs.a, run)}\n`,
      });
      await tool(client, 'terminal', { command: `cd ${dirs.a}`, execution_target: 'a' });
    });

    it('a background process on the non-default target can be polled and killed', async () => {
      const { client } = get();
      const bg = await tool(client, 'terminal', {
        command: 'echo bg-up; sleep 60',
        background: true,
        execution_target: 'b',
      });
      expect(bg).toMatchObject({ execution_target: 'b', status: 'running' });
      const id = bg.session_id as string;
      let out = '';
      for (let i = 0; i < 50 && !out.includes('bg-up'); i++) {
        out += String(
          (await tool(client, 'process', { action: 'poll', session_id: id, execution_target: 'b' })).output,
        );
        if (!out.includes('bg-up')) await new Promise((r) => setTimeout(r, 100));
      }
      expect(out).toContain('bg-up');
      await expect(tool(client, 'process', { action: 'poll', session_id: id, execution_target: 'a' })).rejects.toThrow(
        /not_permitted/,
      );
      const killed = await tool(client, 'process', { action: 'kill', session_id: id, execution_target: 'b' });
      expect(killed).toMatchObject({ status: 'killed', execution_target: 'b' });
      const list = await tool(client, 'process', { action: 'list' });
      expect(
        (list.processes as Array<{ session_id: string; status: string }>).find((p) => p.session_id === id),
      ).toMatchObject({ status: 'killed' });
    });

    it('execute_code on b writes a file that lands on b; nested calls asking for a still run on b', async () => {
      const { client, dirs } = get();
      const code = [
        'import switchboard_tools as sb',
        `w = sb.write_file("${run}/from-code.txt", "code was here", execution_target="a")`,
        `t = sb.terminal("pwd", execution_target="a")`,
        'print(w["execution_target"], t["execution_target"], t["output"].strip())',
      ].join('\n');
      const r = await tool(client, 'execute_code', { code, execution_target: 'b' });
      expect(r).toMatchObject({ exit_code: 0, execution_target: 'b' });
      expect(String(r.output).trim()).toBe(`b b ${dirs.b}`);
      expect(readFileSync(join(dirs.b, run, 'from-code.txt'), 'utf8')).toBe('code was here');
      expect(existsSync(join(dirs.a, run, 'from-code.txt'))).toBe(false);
    });

    it('refuses the old routing key with a hint, and unknown targets', async () => {
      const { client } = get();
      await expect(tool(client, 'terminal', { command: 'true', target: 'b' })).rejects.toThrow(
        /bad_request: "target" is not an argument of terminal — use "execution_target"/,
      );
      await expect(tool(client, 'terminal', { command: 'true', execution_target: 'zz' })).rejects.toThrow(
        /unknown_target/,
      );
    });
  });
}

describe('switchboard mcp (stdio) and /mcp (Streamable HTTP) against a running serve', () => {
  let p: Profile;
  let serve: ChildProcess;
  let stdio: Client;
  let http: Client;
  let info: { mcp_url: string; token: string };

  beforeAll(async () => {
    execFileSync(process.execPath, [join(repo, 'scripts', 'build.mjs'), 'node'], { cwd: repo, stdio: 'ignore' });
    p = profile();
    serve = spawn(process.execPath, [bin, 'serve'], {
      env: { ...process.env, SWITCHBOARD_HOME: p.home },
      stdio: 'ignore',
    });
    await waitFor(join(p.home, 'core.json'));
    info = JSON.parse(readFileSync(join(p.home, 'core.json'), 'utf8')) as typeof info;
    stdio = new Client({ name: 'test-stdio', version: '1' });
    await stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, 'mcp'],
        env: { ...(process.env as Record<string, string>), SWITCHBOARD_HOME: p.home },
        stderr: 'pipe',
      }),
    );
    http = new Client({ name: 'test-http', version: '1' });
    await http.connect(
      new StreamableHTTPClientTransport(new URL(info.mcp_url), {
        requestInit: { headers: { authorization: `Bearer ${info.token}` } },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await stdio?.close().catch(() => undefined);
    await http?.close().catch(() => undefined);
    if (serve && serve.exitCode === null) {
      const exited = new Promise((r) => serve.once('exit', r));
      serve.kill('SIGTERM');
      await exited;
    }
    if (p) rmSync(p.root, { recursive: true, force: true });
  });

  checks('stdio', () => ({ client: stdio, dirs: p.dirs }));
  checks('http', () => ({ client: http, dirs: p.dirs }));

  it('tool schemas stay byte-stable when targets change; list_targets sees the change', async () => {
    const before = JSON.stringify((await stdio.listTools()).tools);
    writeConfig(p.home, p.dirs, true);
    const names = async (): Promise<string[]> =>
      ((await tool(stdio, 'list_targets', {})).targets as Array<{ name: string }>).map((t) => t.name);
    for (let i = 0; i < 40 && !(await names()).includes('c'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await names()).toContain('c');
    expect(JSON.stringify((await stdio.listTools()).tools)).toBe(before);
    expect(JSON.stringify((await http.listTools()).tools)).toBe(before);
    expect(before).toBe(JSON.stringify(mcpTools()));
    writeConfig(p.home, p.dirs, false);
  });

  it('records MCP calls with client "mcp" in the audit log', async () => {
    await new Promise((r) => setTimeout(r, 200));
    const lines = readFileSync(join(p.home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { client: string; tool: string });
    expect(lines.filter((l) => l.tool === 'execute_code').every((l) => l.client === 'mcp')).toBe(true);
    expect(lines.some((l) => l.client === 'execute_code' && l.tool === 'write_file')).toBe(true);
  });

  it('HTTP without the token is 401; a foreign Origin or Host is 403', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    expect((await fetch(info.mcp_url, { method: 'POST', headers, body })).status).toBe(401);
    const refused = await fetch(info.mcp_url, {
      method: 'POST',
      headers: { ...headers, authorization: 'Bearer wrong' },
      body,
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer\b/);
    // The token goes in the header only: a query token is refused on /mcp (URLs end up in logs and histories).
    const query = new URL(info.mcp_url);
    query.searchParams.set('token', info.token);
    expect((await fetch(query, { method: 'POST', headers, body })).status).toBe(401);
    // The scheme is case-insensitive.
    expect(
      (
        await fetch(info.mcp_url, {
          method: 'POST',
          headers: { ...headers, authorization: `bearer ${info.token}` },
          body,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await fetch(info.mcp_url, {
          method: 'POST',
          headers: { ...headers, authorization: `Bearer ${info.token}`, origin: 'http://evil.example' },
          body,
        })
      ).status,
    ).toBe(403);
    const url = new URL(info.mcp_url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: '/mcp',
          method: 'POST',
          headers: { ...headers, host: `evil.example:${url.port}`, authorization: `Bearer ${info.token}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(403);
  });
});

describe('switchboard mcp without a Core', () => {
  it('says so in one stderr line and answers initialize with how to start one, then exits with stdin', () => {
    const home = mkdtempSync(join(tmpdir(), 'sb-mcp-none-'));
    try {
      const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } };
      const r = spawnSync(process.execPath, [bin, 'mcp'], {
        env: { ...process.env, SWITCHBOARD_HOME: home },
        input: `${JSON.stringify(initialize)}\n`,
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(r.status).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        id: 1,
        error: { code: -32000, message: expect.stringMatching(/^no_core: no Switchboard Core is running .* — start/) },
      });
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^switchboard: no Switchboard Core is running .* — start one with `switchboard serve`/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('a hook that tries to retarget after authorization (in-process Core, MCP over HTTP)', () => {
  let host: Host;
  let p: Profile;
  let client: Client;
  beforeAll(async () => {
    p = profile();
    host = await startHost({ mode: 'serve', home: p.home });
    host.core.dispatcher.addGuard(async (req) =>
      req.tool === 'write_file' ? { args: { ...req.args, execution_target: 'a' } } : undefined,
    );
    client = new Client({ name: 'test-guard', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}mcp`), {
        requestInit: { headers: { authorization: `Bearer ${host.server.token}` } },
      }),
    );
  });
  afterAll(async () => {
    await client?.close().catch(() => undefined);
    await host?.close();
    if (p) rmSync(p.root, { recursive: true, force: true });
  });

  it('is refused, and nothing is written on either target', async () => {
    await expect(
      tool(client, 'write_file', { path: 'hooked.txt', content: 'x', execution_target: 'b' }),
    ).rejects.toThrow(/not_permitted: a hook tried to change execution_target after authorization/);
    expect(existsSync(join(p.dirs.a, 'hooked.txt'))).toBe(false);
    expect(existsSync(join(p.dirs.b, 'hooked.txt'))).toBe(false);
    // Calls the hook leaves alone still run.
    expect(await tool(client, 'terminal', { command: 'pwd', execution_target: 'b' })).toMatchObject({
      output: `${p.dirs.b}\n`,
    });
  });
});

describe('/mcp as plain HTTP (what the SDK transport would answer, in JSON)', () => {
  let host: Host;
  let p: Profile;
  beforeAll(async () => {
    p = profile();
    host = await startHost({ mode: 'serve', home: p.home });
  });
  afterAll(async () => {
    await host?.close();
    if (p) rmSync(p.root, { recursive: true, force: true });
  });
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${host.url}mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${host.server.token}`,
        ...headers,
      },
      body,
    });
  const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  it(
    'answers a request with one JSON body, ' + 'a batch with an array in order, a notification alone with 202',
    async () => {
      const one = await post(JSON.stringify(list(1)));
      expect([one.status, one.headers.get('content-type')]).toEqual([200, 'application/json']);
      expect(((await one.json()) as { id: number; result: { tools: unknown[] } }).result.tools).toHaveLength(
        mcpTools().length,
      );
      const batch = (await (await post(JSON.stringify([list(2), list(3)]))).json()) as { id: number }[];
      expect(batch.map((m) => m.id)).toEqual([2, 3]);
      const note = await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      expect([note.status, await note.text()]).toEqual([202, '']);
    },
  );

  it('refuses what the protocol does not allow, each with its status and one JSON-RPC error', async () => {
    const cases: [Response, number, number, RegExp][] = [
      [await post(JSON.stringify(list(1)), { accept: 'application/json' }), 406, -32000, /Not Acceptable/],
      [await post(JSON.stringify(list(1)), { 'content-type': 'text/plain' }), 415, -32000, /Unsupported Media Type/],
      [await post('{"jsonrpc": "2.0", '), 400, -32700, /Invalid JSON$/],
      [await post('{"hello": 1}'), 400, -32600, /^Invalid Request: a result has no key "hello"$/],
      [
        await post(JSON.stringify(list(1)), { 'mcp-protocol-version': '1999-01-01' }),
        400,
        -32000,
        /Unsupported protocol version: 1999-01-01/,
      ],
      [
        await post(JSON.stringify(Array.from({ length: 101 }, (_, i) => list(i)))),
        400,
        -32600,
        /Batch must not exceed 100/,
      ],
      [
        await post(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(17 * 1024 * 1024)}"}}`),
        413,
        -32000,
        /Payload Too Large/,
      ],
    ];
    for (const [res, status, code, message] of cases) {
      expect(res.status).toBe(status);
      const body = (await res.json()) as { error: { code: number; message: string }; id: null };
      expect(body.error.code).toBe(code);
      expect(body.error.message).toMatch(message);
    }
    // The Core still answers after all of them.
    expect((await post(JSON.stringify(list(9)))).status).toBe(200);
  });

  it('an invalid request that has an id gets its id back (-32600), as over stdio; one without, null', async () => {
    const cases: [unknown, unknown, RegExp][] = [
      [{ jsonrpc: '2.0', id: 8, method: 3 }, 8, /^Invalid Request: method must be a string$/],
      [{ jsonrpc: '2.0', id: 'q', method: 'tools/list', extra: 1 }, 'q', /"extra"/],
      [{ jsonrpc: '2.0', id: 1.5, method: 'ping' }, null, /id must be/],
      [[list(1), { jsonrpc: '2.0', id: 2, method: 3 }], null, /\(message 2 of the batch\)$/],
      [[], null, /an empty batch/],
    ];
    for (const [message, id, text] of cases) {
      const res = await post(JSON.stringify(message));
      expect(res.status).toBe(400);
      const body = (await res.json()) as { id: unknown; error: { code: number; message: string } };
      expect(body).toMatchObject({ jsonrpc: '2.0', id, error: { code: -32600 } });
      expect(body.error.message).toMatch(text);
    }
  });
});
