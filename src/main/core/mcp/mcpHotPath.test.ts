// /mcp answers a single tools/call, tools/list or ping itself (hotRequest.ts, hotAnswer.ts) and leaves everything else
// to the SDK's Server. A batch of one request takes the SDK's path, so each case here asks the same thing both ways and
// expects the same answer: status, content type and JSON-RPC message.
import { beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { hostForFile } from '../../../../scripts/hostHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../../scripts/sleepProbe.js';
import { mcpHttpHandler, STOPPED_TEXT } from './mcpHttp.js';

const served = hostForFile('sb-mcp-hot-');
const { work } = served;
const uniqueSleep = sleepSeconds(11000, '61');
beforeAll(() => writeFileSync(join(work, 'note.txt'), 'a note\nwith "quotes" and é\n'));

interface Answer {
  status: number;
  type: string | null;
  body: string;
}

/** What every POST of an MCP client carries. */
const mcpHeaders = (): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${served.host.server.token}`,
});

async function post(message: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify(message);
  const res = await fetch(`${served.host.url}mcp`, { method: 'POST', headers: { ...mcpHeaders(), ...headers }, body });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

/** The answer to `message` alone (answered by /mcp) and as a batch of one (answered by the SDK's Server). */
async function bothWays(message: unknown, headers: Record<string, string> = {}): Promise<[Answer, Answer]> {
  return [await post(message, headers), await post([message], headers)];
}

const request = (id: number | string, method: string, params?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});
const callTool = (id: number | string, name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>) =>
  request(id, 'tools/call', { name, ...(args ? { arguments: args } : {}), ...(meta ? { _meta: meta } : {}) });

/** The JSON-RPC messages of an event stream. */
const events = (body: string): Array<Record<string, unknown>> =>
  body
    .split('\n\n')
    .filter((e) => e.startsWith('event: message\ndata: '))
    .map((e) => JSON.parse(e.slice('event: message\ndata: '.length)) as Record<string, unknown>);

describe('/mcp answers the hot requests as the SDK Server does', () => {
  it.each([
    ['a tool call', callTool(1, 'read_file', { path: 'note.txt' })],
    ['a call with a string id', callTool('x-1', 'read_file', { path: 'note.txt', offset: 2 })],
    // Without arguments (read_file's path is missing: a tool error; list_targets would show health that moves).
    ['a call without arguments', callTool(2, 'read_file')],
    ['invalid arguments (a tool error)', callTool(3, 'terminal', { command: 5 })],
    ['a refused argument (a tool error with a hint)', callTool(4, 'terminal', { command: 'true', target: 'a' })],
    ['an unknown tool (JSON-RPC -32602)', callTool(5, 'no_such_tool', {})],
    ['a tool named like an Object member', callTool(51, 'constructor', {})],
    ['a tool named __proto__', callTool(52, '__proto__', {})],
    ['an empty tool name', callTool(53, '', {})],
    ['id 0', callTool(0, 'read_file', { path: 'note.txt' })],
    ['an empty string id', callTool('', 'read_file', { path: 'note.txt' })],
    ['a negative id', callTool(-3, 'read_file', { path: 'note.txt' })],
    ['the largest safe id', callTool(Number.MAX_SAFE_INTEGER, 'read_file', { path: 'note.txt' })],
    ['arguments with a constructor key', callTool(54, 'terminal', { command: 'true', constructor: 1 })],
    ['tools/list', request(6, 'tools/list')],
    ['ping', request(7, 'ping')],
  ])('%s', async (_, message) => {
    const [hot, sdk] = await bothWays(message);
    expect({ ...hot, body: JSON.parse(hot.body) }).toEqual({ ...sdk, body: JSON.parse(sdk.body) });
    expect(hot).toMatchObject({ status: 200, type: 'application/json' });
  });

  it('an unknown tool is a protocol error, an invalid argument a tool error', async () => {
    const unknown = JSON.parse((await post(callTool(8, 'no_such_tool'))).body) as { error: { code: number } };
    expect(unknown.error.code).toBe(ErrorCode.InvalidParams);
    const invalid = JSON.parse((await post(callTool(9, 'terminal', { command: 5 }))).body) as {
      result: { isError: boolean; content: Array<{ text: string }> };
    };
    expect(invalid.result).toMatchObject({ isError: true, content: [{ type: 'text' }] });
  });

  it('takes any Mcp-Session-Id (the endpoint is stateless) and the protocol versions the SDK speaks', async () => {
    for (const headers of [
      { 'mcp-session-id': 'not-a-session-this-core-made' } as Record<string, string>,
      { 'mcp-protocol-version': LATEST_PROTOCOL_VERSION },
      {},
    ]) {
      const [hot, sdk] = await bothWays(request(10, 'ping'), headers);
      expect([hot.status, JSON.parse(hot.body)]).toEqual([sdk.status, JSON.parse(sdk.body)]);
      expect(hot.status).toBe(200);
    }
  });

  it('refuses an unknown protocol version on both paths with the same 400', async () => {
    const [hot, sdk] = await bothWays(callTool(11, 'list_targets'), { 'mcp-protocol-version': '1999-01-01' });
    expect(hot).toEqual(sdk);
    expect(hot.status).toBe(400);
    expect(JSON.parse(hot.body)).toMatchObject({ error: { code: -32000, message: /Unsupported protocol version/ } });
  });

  it('a message the SDK schemas refuse gets the SDK path error: 400 for the message, -32603 for params', async () => {
    // Alone, an invalid request gets its own id back (null when it has none to read); in a batch, null.
    const cases: [unknown, number, number, unknown][] = [
      [{ ...callTool(12, 'list_targets'), extra: 1 }, 400, -32600, 12],
      [{ ...callTool(13, 'list_targets'), id: 1.5 }, 400, -32600, null],
      [request(14, 'tools/call', { name: 'list_targets', arguments: null }), 200, -32603, 14],
    ];
    for (const [bad, status, code, id] of cases) {
      const [alone, batched] = await bothWays(bad);
      for (const answer of [alone, batched]) expect(answer.status).toBe(status);
      expect(JSON.parse(alone.body)).toMatchObject({ id, error: { code } });
      const inBatch = JSON.parse(batched.body) as { error?: unknown } | Array<{ error?: unknown }>;
      expect(Array.isArray(inBatch) ? inBatch[0] : inBatch).toMatchObject({ error: { code } });
    }
  });

  it('a batch of calls is answered as an array, in order', async () => {
    const answer = await post([callTool(15, 'list_targets'), request(16, 'ping'), callTool(17, 'no_such_tool')]);
    expect(answer.status).toBe(200);
    const ids = (JSON.parse(answer.body) as Array<{ id: number }>).map((m) => m.id);
    expect(ids).toEqual([15, 16, 17]);
  });

  it('a call that sends progress is answered as an event stream; without a progressToken as JSON', async () => {
    const slow = 'sleep 1.5; echo slow';
    const streamed = await post(callTool(18, 'terminal', { command: slow }, { progressToken: 'p18' }));
    expect([streamed.status, streamed.type]).toEqual([200, 'text/event-stream']);
    const messages = events(streamed.body);
    expect(messages[0]).toMatchObject({
      method: 'notifications/progress',
      params: { progressToken: 'p18' },
      jsonrpc: '2.0',
    });
    expect(messages.at(-1)).toMatchObject({ id: 18, result: { structuredContent: { output: 'slow\n' } } });
    const plain = await post(callTool(19, 'terminal', { command: slow }));
    expect([plain.status, plain.type]).toEqual([200, 'application/json']);
    expect(JSON.parse(plain.body)).toMatchObject({ id: 19, result: { structuredContent: { output: 'slow\n' } } });
  });

  it("a cancel reaches only its own client's call (by Mcp-Session-Id), and that call's POST gets 202", async () => {
    const s = uniqueSleep();
    const mine = { 'mcp-session-id': 'client-one' };
    const asked = post(callTool(20, 'terminal', { command: `sleep ${s}`, timeout: 600 }), mine);
    await until(() => sleepRunning(s), 'the command started');
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 20 } };
    expect((await post(cancel, { 'mcp-session-id': 'client-two' })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 300));
    expect(sleepRunning(s)).toBe(true);
    expect((await post(cancel, mine)).status).toBe(202);
    await until(() => !sleepRunning(s), 'the command was killed', 50);
    expect(await asked).toEqual({ status: 202, type: null, body: '' });
    // The same id is free again: the next call under it is answered.
    const again = await post(callTool(20, 'terminal', { command: 'echo again' }), mine);
    expect(JSON.parse(again.body)).toMatchObject({ id: 20, result: { structuredContent: { output: 'again\n' } } });
  });

  it('a cancelled call that was streaming progress ends its stream without an answer', async () => {
    const s = uniqueSleep();
    const asked = post(callTool('s21', 'terminal', { command: `sleep ${s}`, timeout: 600 }, { progressToken: 1 }));
    await until(() => sleepRunning(s), 'the command started');
    // Progress of a running call comes after about a second: by then the POST is an event stream.
    await new Promise((r) => setTimeout(r, 2500));
    await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's21' } });
    const answer = await asked;
    expect([answer.status, answer.type]).toEqual([200, 'text/event-stream']);
    const messages = events(answer.body);
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((m) => m.method === 'notifications/progress')).toBe(true);
    await until(() => !sleepRunning(s), 'the command was killed', 50);
  });

  it('closing /mcp at shutdown ends a call answered without a Server and answers it why, as the SDK path', async () => {
    // The route on a server of its own, so that it can be closed while the call runs (the Core's server waits).
    const mcp = mcpHttpHandler((tool, args, signal, progress) =>
      served.host.core.callTool(tool, args, 'mcp', signal, progress),
    );
    const server = createServer((req, res) => void mcp.handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const [s, t] = [uniqueSleep(), uniqueSleep()];
    try {
      const { port } = server.address() as AddressInfo;
      const ask = (body: unknown): Promise<unknown> =>
        fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers: mcpHeaders(), body: JSON.stringify(body) }).then(
          (res) => res.json(),
        );
      // One answered without a Server, one (a batch of one) by the SDK's.
      const hot = ask(callTool(22, 'terminal', { command: `sleep ${s}`, timeout: 600 }));
      const sdk = ask([callTool(23, 'terminal', { command: `sleep ${t}`, timeout: 600 })]);
      await until(() => sleepRunning(s) && sleepRunning(t), 'the commands started');
      await mcp.close();
      await until(() => !sleepRunning(s) && !sleepRunning(t), 'the commands were killed', 50);
      const stopped = (id: number) => ({
        jsonrpc: '2.0',
        id,
        result: { content: [{ type: 'text', text: STOPPED_TEXT }], isError: true },
      });
      expect(await hot).toEqual(stopped(22));
      expect(await sdk).toEqual(stopped(23));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
