// `switchboard mcp` relays MCP's stdio lines to the Core's own /mcp endpoint: what a stdio client sees of it, the
// Core going away and coming back, and a Core that keeps sessions (a stand-in HTTP server: Switchboard's own Core is
// stateless, so only one that is not can show the relay initializing again for a session the Core forgot).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_REQUEST_BYTES } from '../../shared/limits.js';
import { cliPath, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../scripts/sleepProbe.js';

type Message = Record<string, unknown> & { id?: unknown };

const cleanup: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** A sleep whose length is unique to one case, so pgrep finds only that case's command. */
const uniqueSleep = sleepSeconds(4100, '27');

const line = (m: object): string => JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n';
const initialize = (id: number | string = 0): string =>
  line({
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
const initialized = line({ method: 'notifications/initialized' });
const call = (id: number | string, command: string, meta?: object): string =>
  line({
    id,
    method: 'tools/call',
    params: { name: 'terminal', arguments: { command }, ...(meta ? { _meta: meta } : {}) },
  });

/** A running `switchboard mcp` on `home`: every message it wrote, the answer to an id, and how it ended. */
interface Bridge {
  child: ChildProcessWithoutNullStreams;
  messages: Message[];
  stdout: () => string;
  stderr: () => string;
  write: (text: string) => void;
  answer: (id: unknown) => Promise<Message>;
  exited: Promise<number | null>;
}

function bridge(home: string): Bridge {
  const child = spawn(process.execPath, [cliPath, 'mcp'], {
    env: { ...process.env, SWITCHBOARD_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanup.push(() => void child.kill());
  let stdout = '';
  let stderr = '';
  let buffered = '';
  const messages: Message[] = [];
  const waiting = new Map<string, (m: Message) => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    buffered += d;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const m = JSON.parse(buffered.slice(0, nl)) as Message;
      buffered = buffered.slice(nl + 1);
      messages.push(m);
      waiting.get(JSON.stringify(m.id))?.(m);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    messages,
    stdout: () => stdout,
    stderr: () => stderr,
    write: (text) => child.stdin.write(text),
    answer: (id) => {
      const known = messages.find((m) => JSON.stringify(m.id) === JSON.stringify(id));
      return known ? Promise.resolve(known) : new Promise((resolve) => waiting.set(JSON.stringify(id), resolve));
    },
    exited,
  };
}

const output = (m: Message): string | undefined =>
  (m.result as { structuredContent?: { output?: string } } | undefined)?.structuredContent?.output;
const toolError = (m: Message): string | undefined => {
  const r = m.result as { isError?: boolean; content: Array<{ text: string }> } | undefined;
  return r?.isError ? r.content[0]!.text : undefined;
};

describe('switchboard mcp against a real Core', () => {
  const home = tempHome('sb-mcp-relay-');
  const work = tempHome('sb-mcp-relay-work-');
  let served: Served;
  beforeAll(async () => {
    ensureBuilt();
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${work} }\n`);
    served = await startServe(home);
  }, 60_000);
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('answers what comes right behind initialize, in one write: initialize first, the rest each once', async () => {
    const b = bridge(home);
    b.write(
      initialize(1) +
        initialized +
        line({ id: 2, method: 'tools/list', params: {} }) +
        line({ id: 3, method: 'ping' }) +
        call(4, 'echo pipelined') +
        line({ id: 5, method: 'no/such/method' }),
    );
    await b.answer(5);
    await b.answer(4);
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
    expect(b.messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(b.messages[0]).toMatchObject({
      id: 1,
      result: { protocolVersion: '2025-06-18', serverInfo: { name: 'switchboard' }, capabilities: { tools: {} } },
    });
    const tools = ((await b.answer(2)).result as { tools: Array<{ name: string; outputSchema?: object }> }).tools;
    expect(tools.map((t) => t.name)).toContain('terminal');
    expect(tools.every((t) => t.outputSchema)).toBe(true);
    expect(await b.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(output(await b.answer(4))).toBe('pipelined\n');
    expect(await b.answer(5)).toMatchObject({ error: { code: -32601 } });
    expect(b.stderr()).toBe('');
    expect(b.stdout()).not.toContain(served.token);
  }, 30_000);

  it('still writes the answer of a call running when stdin ends, then exits 0', async () => {
    const b = bridge(home);
    b.child.stdin.end(initialize(1) + call(2, 'sleep 1; echo late'));
    expect(await b.exited).toBe(0);
    expect(b.messages.map((m) => m.id)).toEqual([1, 2]);
    expect(output(b.messages[1]!)).toBe('late\n');
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('passes the progress of a call on as it comes, then its answer', async () => {
    const b = bridge(home);
    b.write(initialize() + initialized + call(1, 'sleep 2.5; echo slow', { progressToken: 'p1' }));
    expect(output(await b.answer(1))).toBe('slow\n');
    const progress = b.messages.filter((m) => (m as { method?: string }).method === 'notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({ params: { progressToken: 'p1', message: expect.stringMatching(/^running/) } });
    // Each before the answer.
    expect(b.messages.indexOf(progress.at(-1)!)).toBeLessThan(b.messages.findIndex((m) => m.id === 1));
  }, 30_000);

  it('answers a line that is not JSON-RPC, and one too long, with their errors; the next still runs', async () => {
    const b = bridge(home);
    b.write(initialize() + initialized);
    await b.answer(0);
    b.write('{"jsonrpc": "2.0", "id": 7, "method":\n');
    b.write(line({ id: 8, method: 3 }));
    // Over the limit, with its id last, where the SDK's client writes it.
    const command = 'x'.repeat(MAX_REQUEST_BYTES);
    b.write(
      JSON.stringify({
        method: 'tools/call',
        params: { name: 'terminal', arguments: { command } },
        jsonrpc: '2.0',
        id: 9,
      }) + '\n',
    );
    b.write(call(10, 'echo after'));
    expect(output(await b.answer(10))).toBe('after\n');
    expect(await b.answer(null)).toMatchObject({ error: { code: -32700, message: 'Parse error: Invalid JSON' } });
    expect(await b.answer(8)).toMatchObject({ error: { code: -32700 } });
    expect(await b.answer(9)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/^Payload Too Large/) },
    });
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('a cancel stops its own call, not the call of the same id another agent made', async () => {
    const mine = uniqueSleep();
    const theirs = uniqueSleep();
    const a = bridge(home);
    const other = bridge(home);
    for (const b of [a, other]) b.write(initialize() + initialized);
    a.write(call(5, `sleep ${mine}`));
    other.write(call(5, `sleep ${theirs}`));
    await until(() => sleepRunning(mine) && sleepRunning(theirs), 'both commands started');
    const cancel = line({ method: 'notifications/cancelled', params: { requestId: 5, reason: 'test' } });
    a.write(cancel);
    await until(() => !sleepRunning(mine), 'the cancelled command was stopped');
    expect(sleepRunning(theirs)).toBe(true);
    other.write(cancel);
    await until(() => !sleepRunning(theirs), 'the other agent stopped its own');
    // A cancelled request is not answered (MCP): only initialize's answers were written.
    for (const b of [a, other]) expect(b.messages.map((m) => m.id)).toEqual([0]);
  }, 60_000);
});

describe('switchboard mcp when the Core goes away and comes back', () => {
  const home = tempHome('sb-mcp-restart-');
  const work = tempHome('sb-mcp-restart-work-');
  let served: Served | undefined;
  beforeAll(() => {
    ensureBuilt();
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${work} }\n`);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('answers the call it lost, says no Core while there is none, and goes on with the next Core', async () => {
    served = await startServe(home);
    const b = bridge(home);
    b.write(initialize() + initialized + call(1, 'echo one'));
    expect(output(await b.answer(1))).toBe('one\n');
    // A call the Core has when it stops is answered with what happened, and never sent again.
    // Two calls the Core has when it dies: one still silent, one whose answer has begun (its progress came).
    b.write(call(2, 'echo ran >> ran.txt; sleep 3'));
    b.write(call('2b', 'sleep 3', { progressToken: 'p' }));
    await until(() => existsSync(join(work, 'ran.txt')), 'the call ran');
    await until(
      () => b.messages.some((m) => (m as { method?: string }).method === 'notifications/progress'),
      'progress',
    );
    // The Core dies (a stop lets running calls end first).
    const died = new Promise((r) => served!.child.once('exit', r));
    served.child.kill('SIGKILL');
    await died;
    for (const id of [2, '2b'])
      expect(toolError(await b.answer(id))).toMatch(
        /^no_core: the connection to the Core at http:\/\/127\.0\.0\.1:\d+\/mcp was lost \(.+\); the request may/,
      );
    // No Core: the call is answered at once with why.
    b.write(call(3, 'echo none'));
    expect(toolError(await b.answer(3))).toMatch(
      /^no_core: no Switchboard Core is running \(the one in .*, has exited\)/,
    );
    served = await startServe(home);
    b.write(call(4, 'echo back'));
    expect(output(await b.answer(4))).toBe('back\n');
    expect(readFileSync(join(work, 'ran.txt'), 'utf8')).toBe('ran\n');
    // The answer to the initialize said again to the new Core is not written: one initialize, one answer.
    expect(b.messages.filter((m) => m.id === 0)).toHaveLength(1);
    expect(b.stderr()).toBe('');
    for (const text of [b.stdout(), b.stderr()]) expect(text).not.toContain(served.token);
  }, 90_000);
});

/**
 * A stand-in Core that keeps sessions as the SDK's stateful transport does: initialize gives a session id, a request
 * naming an unknown session is 404, and one without its token 401. `forget()` is a restart in place, `rotate()` one
 * with a new token. It records every POST it reads.
 */
async function sessionCore(): Promise<{
  port: number;
  posts: Array<{ method?: string; id?: unknown; session?: string; version?: string; auth?: string }>;
  forget: () => void;
  rotate: (token: string) => void;
}> {
  let sessions = new Set<string>();
  let token = 'agent-token';
  let next = 0;
  const posts: Array<{ method?: string; id?: unknown; session?: string; version?: string; auth?: string }> = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const m = JSON.parse(body) as { id?: unknown; method?: string };
      const session = req.headers['mcp-session-id'] as string | undefined;
      posts.push({
        method: m.method,
        id: m.id,
        session,
        version: req.headers['mcp-protocol-version'] as string | undefined,
        auth: req.headers.authorization,
      });
      if (req.headers.authorization !== `Bearer ${token}`) return void res.writeHead(401).end('token not valid\n');
      if (m.method === 'initialize') {
        const id = `s${++next}`;
        sessions.add(id);
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': id });
        return void res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-03-26' } }));
      }
      if (!session || !sessions.has(session)) return void res.writeHead(404).end('session not found');
      if (m.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { session } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
  server.unref();
  return {
    port: (server.address() as { port: number }).port,
    posts,
    forget: () => (sessions = new Set()),
    rotate: (t) => {
      token = t;
      sessions = new Set();
    },
  };
}

describe('switchboard mcp and a Core that keeps sessions', () => {
  it('sends the session and version initialize set; initializes again, unseen, for a new session, token', async () => {
    const home = tempHome('sb-mcp-session-');
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    mkdirSync(home, { recursive: true });
    const core = await sessionCore();
    const publish = (token: string): void =>
      writeFileSync(
        join(home, 'core.json'),
        JSON.stringify({
          url: `http://127.0.0.1:${core.port}/`,
          ws_url: `ws://127.0.0.1:${core.port}/ws`,
          mcp_url: `http://127.0.0.1:${core.port}/mcp`,
          token,
          // A live process: this one.
          pid: process.pid,
          started_at: new Date().toISOString(),
          mode: 'serve',
        }),
        { mode: 0o600 },
      );
    publish('agent-token');
    const b = bridge(home);
    b.write(initialize(1) + initialized + line({ id: 2, method: 'ping' }));
    expect(await b.answer(2)).toMatchObject({ result: { session: 's1' } });
    core.forget();
    b.write(line({ id: 3, method: 'ping' }));
    expect(await b.answer(3)).toMatchObject({ result: { session: 's2' } });
    expect(b.messages.map((m) => m.id)).toEqual([1, 2, 3]);
    const seen = core.posts.map((p) => [p.method, p.session ?? '-']);
    // initialized and the first ping go out together, in either order; initializing again is in order.
    expect(seen.slice(0, 3).sort()).toEqual([
      ['initialize', '-'],
      ['notifications/initialized', 's1'],
      ['ping', 's1'],
    ]);
    expect(seen.slice(3)).toEqual([
      ['ping', 's1'],
      ['initialize', '-'],
      ['notifications/initialized', 's2'],
      ['ping', 's2'],
    ]);
    expect(core.posts.filter((p) => p.method !== 'initialize').every((p) => p.version === '2025-03-26')).toBe(true);
    expect(core.posts.every((p) => p.auth === 'Bearer agent-token')).toBe(true);
    // A Core that came back on the same address with a new token: refused (401) before it read the request, so the
    // request goes again, with the token core.json names now.
    const before = core.posts.length;
    core.rotate('agent-token-2');
    publish('agent-token-2');
    b.write(line({ id: 4, method: 'ping' }));
    expect(await b.answer(4)).toMatchObject({ result: { session: 's3' } });
    expect(core.posts.slice(before).map((p) => [p.method, p.session ?? '-', p.auth])).toEqual([
      ['ping', 's2', 'Bearer agent-token'],
      ['initialize', '-', 'Bearer agent-token-2'],
      ['notifications/initialized', 's3', 'Bearer agent-token-2'],
      ['ping', 's3', 'Bearer agent-token-2'],
    ]);
    expect(b.messages.map((m) => m.id)).toEqual([1, 2, 3, 4]);
    expect(b.stdout() + b.stderr()).not.toMatch(/agent-token/);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('a Core that is not listening: initialize and calls are answered with no_core, nothing on stderr', async () => {
    const home = tempHome('sb-mcp-gone-');
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    writeFileSync(
      join(home, 'core.json'),
      JSON.stringify({ mcp_url: `http://127.0.0.1:${port}/mcp`, token: 't', pid: process.pid }),
    );
    const b = bridge(home);
    b.write(initialize(1) + call(2, 'true'));
    expect(await b.answer(1)).toMatchObject({
      error: {
        code: -32000,
        message: expect.stringMatching(/^no_core: cannot reach the Core at http:\/\/127\.0\.0\.1:\d+\/mcp/),
      },
    });
    expect(toolError(await b.answer(2))).toMatch(/^no_core: cannot reach the Core/);
    expect(b.child.exitCode).toBeNull();
    expect(b.stderr()).toBe('');
  }, 30_000);
});
