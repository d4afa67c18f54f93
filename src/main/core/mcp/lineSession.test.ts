// MCP lines at /mcp (lineSession.ts), spoken by hand over a real Core's loopback port as `switchboard mcp`'s relay
// speaks it: who may upgrade, the a/m/d lines, what a lost connection would be answered with, cancels that stay on
// their connection, a dropped connection that stops its commands, a half-close that is still answered, a line too long.
import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { MAX_REQUEST_BYTES } from '../../../shared/limits.js';
import { hostForFile, type FileHost } from '../../../../scripts/hostHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../../scripts/sleepProbe.js';

const served = hostForFile('sb-mcp-lines-');
const uniqueSleep = sleepSeconds(5200, '91');

const port = (at: FileHost = served): number => Number(new URL(at.host.url).port);
const line = (m: object): string => `${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`;
const call = (id: number | string, command: string, meta?: object): string =>
  line({
    id,
    method: 'tools/call',
    params: { name: 'terminal', arguments: { command, timeout: 600 }, ...(meta ? { _meta: meta } : {}) },
  });
const cancel = (id: number | string): string =>
  line({ method: 'notifications/cancelled', params: { requestId: id, reason: 'the client gave up' } });

/** What an upgrade request got: its status line, and the socket when it was switched. */
async function upgrade(
  headers: Record<string, string>,
  at: FileHost = served,
): Promise<{ status: string; text: string; socket: Socket }> {
  const socket = connect(port(at), '127.0.0.1');
  const head = Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`GET /mcp HTTP/1.1\r\n${head}\r\n`);
  let text = '';
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer): void => {
      text += d.toString('latin1');
      if (!text.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
    socket.once('close', () => resolve());
  });
  return { status: text.split('\r\n')[0] ?? '', text, socket };
}

const relayHeaders = (at: FileHost = served): Record<string, string> => ({
  Host: `127.0.0.1:${port(at)}`,
  Authorization: `Bearer ${at.host.server.token}`,
  Connection: 'Upgrade',
  Upgrade: 'switchboard-mcp-lines',
});

/** One line connection: what the Core wrote, line by line, and a wait for a line that matches. */
interface Lines {
  socket: Socket;
  got: string[];
  write: (text: string) => void;
  next: (match: RegExp) => Promise<string>;
  closed: Promise<void>;
}

async function lines(at: FileHost = served): Promise<Lines> {
  const { status, socket } = await upgrade(relayHeaders(at), at);
  expect(status).toBe('HTTP/1.1 101 Switching Protocols');
  const got: string[] = [];
  let buffered = '';
  socket.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      got.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return {
    socket,
    got,
    write: (text) => void socket.write(text),
    next: async (match) => {
      await until(() => got.some((l) => match.test(l)), `a line like ${match}`);
      return got.find((l) => match.test(l))!;
    },
    closed,
  };
}

const message = (l: string): Record<string, unknown> => JSON.parse(l.slice(2)) as Record<string, unknown>;
const toolText = (l: string): string => (message(l).result as { content: Array<{ text: string }> }).content[0]!.text;

describe('who may upgrade /mcp to MCP lines', () => {
  it('needs the agent token, this Core as Host, and the protocol asked by name', async () => {
    const wrongToken = await upgrade({ ...relayHeaders(), Authorization: 'Bearer not-the-token' });
    expect(wrongToken.status).toBe('HTTP/1.1 401 Unauthorized');
    expect(wrongToken.text).toContain('token not valid for this Core');
    const noToken = await upgrade({ ...relayHeaders(), Authorization: '' });
    expect(noToken.status).toBe('HTTP/1.1 401 Unauthorized');
    // DNS rebinding: a page of another site that resolves to loopback.
    const otherHost = await upgrade({ ...relayHeaders(), Host: `evil.example:${port()}` });
    expect(otherHost.status).toBe('HTTP/1.1 403 Forbidden');
    const otherOrigin = await upgrade({ ...relayHeaders(), Origin: 'http://evil.example' });
    expect(otherOrigin.status).toBe('HTTP/1.1 403 Forbidden');
    const otherProtocol = await upgrade({ ...relayHeaders(), Upgrade: 'websocket' });
    expect(otherProtocol.status).toBe('HTTP/1.1 404 Not Found');
    for (const r of [wrongToken, noToken, otherHost, otherOrigin, otherProtocol]) r.socket.destroy();
  });
});

describe('MCP lines on a real Core', () => {
  it('answers each line as its POST would be: a before m, d after, the lost answer with exact ids', async () => {
    const c = await lines();
    c.write(
      line({
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }) + line({ method: 'notifications/initialized' }),
    );
    c.write(call('one', 'echo one') + line({ id: 7, method: 'no/such/method' }) + 'not json\n');
    for (const done of [/^d 3$/, /^d 4$/]) await c.next(done);
    await c.next(/^m \{"jsonrpc":"2\.0","id":null,"error":\{"code":-32700/);
    const init = c.got.findIndex((l) => l.startsWith('a 1 '));
    expect(JSON.parse(c.got[init]!.slice('a 1 '.length))).toMatchObject({ id: 0, error: { code: -32000 } });
    expect(c.got[init + 1]).toBe('a 2');
    // The lost answer of a tool call is a tool error with its id as it was sent (a string stays a string).
    const lost = c.got.find((l) => l.startsWith('a 3 '))!.slice('a 3 '.length);
    expect(JSON.parse(lost)).toMatchObject({ id: 'one', result: { isError: true } });
    expect(JSON.parse(lost).result.content[0].text).toMatch(
      /^no_core: the connection to the Core at http:\/\/127\.0\.0\.1:\d+\/mcp was lost \(closed\); the request may/,
    );
    const answerOne = c.got.findIndex((l) => l.startsWith('m ') && message(l).id === 'one');
    expect(JSON.parse(c.got[answerOne]!.slice(2)).result.structuredContent.output).toBe('one\n');
    expect(c.got.indexOf('d 3')).toBeGreaterThan(answerOne);
    expect(c.got.find((l) => l.startsWith('m ') && message(l).id === 7)).toBeDefined();
    expect(message(c.got.find((l) => l.startsWith('m ') && message(l).id === 7)!)).toMatchObject({
      error: { code: -32601 },
    });
    // The initialize's answer and the notification's acknowledgement: nothing kept for a notification.
    expect(c.got.filter((l) => l.startsWith('d 2'))).toEqual([]);
    c.socket.destroy();
  });

  it('a refusal says the request id; a notification refused gets nothing', async () => {
    const c = await lines();
    // Not JSON-RPC messages (a method that is not a string, one that is cancelled without params): /mcp answers such
    // a POST with 400 and id null; a line's answer says whose it is, and a notification has nobody waiting.
    c.write(
      line({ id: 41, method: 3 }) +
        line({ method: 3 }) +
        line({ method: 'notifications/cancelled', params: 5 }) +
        line({ id: 42, method: 'ping' }),
    );
    await c.next(/^d 4$/);
    const invalid = { code: -32700, message: 'Parse error: Invalid JSON-RPC message' };
    expect(c.got.filter((l) => l.startsWith('m ')).map((l) => message(l))).toEqual([
      { jsonrpc: '2.0', id: 41, error: invalid },
      { jsonrpc: '2.0', id: null, error: invalid },
      { result: {}, jsonrpc: '2.0', id: 42 },
    ]);
    c.socket.destroy();
  });

  it('passes progress on as m lines before the answer, and its d after', async () => {
    const c = await lines();
    c.write(call(5, 'sleep 1.3; echo late', { progressToken: 'tok' }));
    const answer = await c.next(/^m \{"result"/);
    const progress = c.got.findIndex((l) => l.includes('"notifications/progress"'));
    expect(progress).toBeGreaterThan(0);
    expect(message(c.got[progress]!)).toMatchObject({ params: { progressToken: 'tok' } });
    expect(c.got.indexOf(answer)).toBeGreaterThan(progress);
    await c.next(/^d 1$/);
    c.socket.destroy();
  });

  it("a cancel stops its own connection's call, not another connection's call of the same id", async () => {
    const mine = await lines();
    const other = await lines();
    const s1 = uniqueSleep();
    const s2 = uniqueSleep();
    mine.write(call(1, `sleep ${s1}`));
    other.write(call(1, `sleep ${s2}`));
    await until(() => sleepRunning(s1) && sleepRunning(s2), 'both commands started');
    mine.write(cancel(1));
    await mine.next(/^d 1$/);
    await until(() => !sleepRunning(s1), 'the cancelled command was killed', 50);
    expect(sleepRunning(s2)).toBe(true);
    // Cancelled: no answer at all, as MCP asks.
    expect(mine.got.filter((l) => l.startsWith('m '))).toEqual([]);
    other.write(cancel(1));
    await until(() => !sleepRunning(s2), 'the other command was killed', 50);
    for (const c of [mine, other]) c.socket.destroy();
  });

  it('a dropped connection stops what it asked', async () => {
    const c = await lines();
    const s = uniqueSleep();
    c.write(call(1, `sleep ${s}`));
    await until(() => sleepRunning(s), 'the command started');
    c.socket.destroy();
    await until(() => !sleepRunning(s), 'the command was killed', 50);
  });

  it('a connection ended without its end line stops what it asked (its relay died)', async () => {
    const c = await lines();
    const s = uniqueSleep();
    c.write(call(1, `sleep ${s}`));
    await until(() => sleepRunning(s), 'the command started');
    c.socket.end();
    await until(() => !sleepRunning(s), 'the command was killed', 50);
    await c.closed;
  });

  it('after the end line a running call is answered, then the Core closes; later lines are not read', async () => {
    const c = await lines();
    c.write(call(3, 'sleep 0.8; echo done'));
    c.write(`\n${call(4, 'echo never')}`);
    c.socket.end();
    await c.closed;
    expect(c.got.filter((l) => l.startsWith('m ')).map((l) => message(l).id)).toEqual([3]);
    expect(c.got.at(-1)).toBe('d 1');
  });

  it('a line over the limit is answered with its id and never held; the next line runs', async () => {
    const c = await lines();
    const command = 'x'.repeat(MAX_REQUEST_BYTES);
    const params = `{"name":"terminal","arguments":{"command":"${command}"}}`;
    const big = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":${params}}\n`;
    c.write(big + call(2, 'echo after'));
    await c.next(/^d 2$/);
    const tooLong = message(c.got.find((l) => l.startsWith('m ') && l.includes('Payload Too Large'))!);
    expect(tooLong).toMatchObject({ id: 'big', error: { code: -32000 } });
    expect(toolText(c.got.find((l) => l.startsWith('m ') && message(l).id === 2)!)).toContain('after');
    c.socket.destroy();
  });
});

describe('MCP lines when the Core stops', () => {
  const stopping = hostForFile('sb-mcp-lines-stop-');

  it('a running call is answered, a line sent after the stop is not taken, then the connection closes', async () => {
    const c = await lines(stopping);
    c.write(call(1, 'sleep 0.8; echo done'));
    await c.next(/^a 1 /);
    const closed = stopping.host.close();
    c.write(call(2, 'touch too-late'));
    await c.closed;
    await closed;
    expect(c.got.filter((l) => l.startsWith('m ')).map((l) => message(l).id)).toEqual([1]);
    expect(toolText(c.got.find((l) => l.startsWith('m '))!)).toContain('done');
    // Never acknowledged: the relay answers it as lost, and it never ran.
    expect(c.got.some((l) => /^a 2\b/.test(l))).toBe(false);
    expect(existsSync(join(stopping.work, 'too-late'))).toBe(false);
    expect(c.got.at(-1)).toBe('d 1');
  });
});
