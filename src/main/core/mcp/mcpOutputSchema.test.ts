// Typed results: every tool lists an outputSchema, and every result of every tool, success or error, passes the MCP
// SDK Client's own validation against it (the Client refuses a result whose structuredContent does not match).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { toolNames } from '../../../shared/tools.js';
import { startHost, type Host } from '../../transport/host.js';
import { mcpTools } from './mcpServer.js';

type Result = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: unknown };

let root: string;
let host: Host;
let client: Client;
/** Which tools gave a success and an error result here: every tool must give both. */
const seen = { ok: new Set<string>(), error: new Set<string>() };

beforeAll(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-outschema-')));
  const home = join(root, 'home');
  const cwd = join(root, 'work');
  mkdirSync(home);
  mkdirSync(cwd);
  // deny: a call the policy would ask about is refused at once (an error result of its own kind).
  writeFileSync(
    join(home, 'config.yaml'),
    `terminal:\n  targets:\n    a: { backend: local, cwd: ${cwd} }\napprovals:\n  mode: deny\n`,
  );
  host = await startHost({ mode: 'serve', home });
  client = new Client({ name: 'test-outschema', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${host.url}mcp`), {
      requestInit: { headers: { authorization: `Bearer ${host.server.token}` } },
    }),
  );
  // The Client validates results only against schemas it has listed.
  await client.listTools();
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await host?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A call through the SDK Client, which throws when structuredContent does not match the tool's outputSchema. */
async function call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = (await client.callTool({ name, arguments: args })) as Result;
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  expect(r.structuredContent).toEqual(JSON.parse(r.content[0]?.text ?? ''));
  seen.ok.add(name);
  return r.structuredContent as Record<string, unknown>;
}

/** A tool error: isError, one text line, passed by the Client. */
async function fails(name: string, args: Record<string, unknown>, text: RegExp): Promise<void> {
  const r = (await client.callTool({ name, arguments: args })) as Result;
  expect(r.isError).toBe(true);
  expect(r.content[0]?.text).toMatch(text);
  seen.error.add(name);
}

describe('outputSchema through the MCP SDK Client', () => {
  it('every tool lists an object outputSchema derived from its result schema; the list stays the same', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...toolNames].sort());
    for (const t of tools) {
      expect(t.outputSchema, t.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(Object.keys(t.outputSchema!.properties ?? {})).toEqual(
        expect.arrayContaining(['execution_target', 'generation']),
      );
      expect(t.outputSchema).not.toHaveProperty('$schema');
    }
    expect(tools).toEqual(JSON.parse(JSON.stringify(mcpTools())));
  });

  it('terminal: foreground, cut, timed out, background; errors', async () => {
    expect(await call('terminal', { command: 'echo hi' })).toMatchObject({ output: 'hi\n', exit_code: 0 });
    const cut = await call('terminal', { command: 'head -c 200000 /dev/zero | tr "\\0" x' });
    expect(cut).toMatchObject({ truncated: true, output_id: expect.any(String) });
    const slice = await call('read_output', { output_id: cut.output_id as string, offset: 10, limit: 100 });
    expect(slice).toMatchObject({ total_chars: 200000, has_more: true, next_offset: 110 });
    await fails('read_output', { output_id: 'not-an-id' }, /^(bad_request|unknown_output): /);
    expect(await call('terminal', { command: 'sleep 5', timeout: 1 })).toMatchObject({ timed_out: true });
    expect(await call('terminal', { command: 'exit 3' })).toMatchObject({ exit_code: 3 });
    const bg = await call('terminal', { command: 'cat', background: true });
    expect(bg).toMatchObject({ status: 'running', command: 'cat' });
    const id = bg.session_id as string;
    await call('process', { action: 'write', session_id: id, data: 'echoed\n' });
    await call('process', { action: 'poll', session_id: id });
    await call('process', { action: 'log', session_id: id, lines: 5 });
    await call('process', { action: 'log', session_id: id, offset: 0, limit: 3 });
    expect(await call('process', { action: 'wait', session_id: id, timeout: 0.2 })).toMatchObject({ timed_out: true });
    expect(await call('process', { action: 'list' })).toMatchObject({ processes: [expect.anything()] });
    expect(await call('process', { action: 'list', execution_target: 'a' })).toMatchObject({ execution_target: 'a' });
    expect(await call('process', { action: 'kill', session_id: id })).toMatchObject({ status: 'killed' });
    await fails('terminal', { command: '' }, /^bad_request: terminal: /);
    await fails('terminal', { command: 'true', execution_target: 'zz' }, /^unknown_target: /);
    await fails('terminal', { command: 'rm -rf ~/x' }, /^approval_denied: /);
    await fails('process', { action: 'poll', session_id: 'nope' }, /nope/);
  });

  it('the file tools: read, write, patch, search; errors', async () => {
    expect(await call('write_file', { path: 'd/f.txt', content: 'one\ntwo\nthree' })).toMatchObject({
      bytes_written: 13,
    });
    expect(await call('read_file', { path: 'd/f.txt', limit: 1 })).toMatchObject({ total_lines: 3, next_offset: 2 });
    expect(await call('patch', { path: 'd/f.txt', old_string: 'two', new_string: '2' })).toMatchObject({
      replacements: 1,
    });
    expect(
      await call('search_files', { pattern: 'e', target: 'content', context: 1, limit: 1, path: 'd' }),
    ).toMatchObject({ count: 1, truncated: true });
    expect(await call('search_files', { pattern: '*.txt', target: 'files' })).toMatchObject({ count: 1 });
    await fails('read_file', { path: 'missing.txt' }, /^bad_request: no such file/);
    await fails('write_file', { path: 'x', content: 1 }, /^bad_request: write_file: /);
    await fails('patch', { path: 'd/f.txt', old_string: 'absent', new_string: 'x' }, /^bad_request: /);
    await fails('search_files', { pattern: '(', target: 'content' }, /not a valid regular expression/);
  });

  it('execute_code and list_targets; errors', async () => {
    expect(
      await call('execute_code', { code: 'import switchboard_tools as sb\nprint(sb.terminal("echo in")["output"])' }),
    ).toMatchObject({ exit_code: 0, tool_calls: 1 });
    expect(await call('execute_code', { code: 'raise SystemExit(4)' })).toMatchObject({ exit_code: 4 });
    expect(await call('list_targets', {})).toMatchObject({ default_target: 'a', targets: [{ name: 'a' }] });
    await fails('execute_code', { code: 'import shutil\nshutil.rmtree("/home")' }, /^approval_denied: /);
    await fails('list_targets', { extra: 1 }, /^bad_request: list_targets: /);
  });

  it('every tool gave a success and an error result above', () => {
    expect([...seen.ok].sort()).toEqual([...toolNames].sort());
    expect([...seen.error].sort()).toEqual([...toolNames].sort());
  });

  it('an unknown tool is a JSON-RPC error whose message says "MCP error -32602:" once', async () => {
    const err = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).message).toMatch(/^MCP error -32602: unknown tool "no_such_tool"/);
    expect((err as McpError).message.match(/MCP error/g)).toHaveLength(1);
  });
});
