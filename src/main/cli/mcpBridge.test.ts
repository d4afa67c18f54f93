// `switchboard mcp` (bin/switchboard execs the Perl relay, bin/mcp-relay.pl) pumps MCP's stdio lines to the Core
// over one upgraded connection: what a stdio client sees of it against a real Core, the Core going away and coming
// back, and the wire protocol itself against a stand-in Core (node:net), which alone can lose a connection between
// two chosen lines, refuse the upgrade, or show the bytes the relay sent.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { MAX_REQUEST_BYTES } from '../../shared/limits.js';
import { binPath, cliPath, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../scripts/sleepProbe.js';
import { repoRoot } from '../../../scripts/testEnv.js';

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
  /** stdout as the bytes it came in. */
  raw: () => Buffer;
  stdout: () => string;
  stderr: () => string;
  write: (text: string) => void;
  answer: (id: unknown) => Promise<Message>;
  exited: Promise<number | null>;
}

/** `switchboard mcp` as a client starts it: bin/switchboard, or `node bin/switchboard.js mcp` (`throughNode`). */
function bridge(home: string, throughNode = false): Bridge {
  const [command, args] = throughNode ? [process.execPath, [cliPath, 'mcp']] : [binPath, ['mcp']];
  const child = spawn(command, args, {
    env: { ...process.env, SWITCHBOARD_HOME: home },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  cleanup.push(() => void child.kill());
  const chunks: Buffer[] = [];
  let stderr = '';
  let buffered = '';
  const messages: Message[] = [];
  const waiting = new Map<string, (m: Message) => void>();
  child.stdout.on('data', (d: Buffer) => {
    chunks.push(d);
    buffered += d.toString('latin1');
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      const m = JSON.parse(Buffer.from(buffered.slice(0, nl), 'latin1').toString('utf8')) as Message;
      buffered = buffered.slice(nl + 1);
      messages.push(m);
      waiting.get(JSON.stringify(m.id))?.(m);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  // A relay that exits early closes its stdin: writes after that are not this test's failure to report.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    messages,
    raw: () => Buffer.concat(chunks),
    stdout: () => Buffer.concat(chunks).toString('utf8'),
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

  it('answers what comes right behind initialize, in one write: each once', async () => {
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
    // Each line is answered as it is done (the Core runs them side by side): not necessarily initialize first.
    expect(await b.answer(1)).toMatchObject({
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

  it('answers the calls it lost, says no Core while there is none, and goes on with the next Core', async () => {
    served = await startServe(home);
    const b = bridge(home);
    b.write(initialize() + initialized + call(1, 'echo one'));
    expect(output(await b.answer(1))).toBe('one\n');
    // Two calls the Core has when it dies: one still silent, one whose answer has begun (its progress came). The
    // Core acknowledged both with their no_core answers (`a N JSON`), which the relay writes; neither is sent again.
    b.write(call(2, 'echo ran >> ran.txt; sleep 3'));
    b.write(call('2b', 'sleep 3', { progressToken: 'p' }));
    await until(() => existsSync(join(work, 'ran.txt')), 'the call ran');
    await until(
      () => b.messages.some((m) => (m as { method?: string }).method === 'notifications/progress'),
      'progress',
    );
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
    expect(b.messages.filter((m) => m.id === 0)).toHaveLength(1);
    expect(b.stderr()).toBe('');
    for (const text of [b.stdout(), b.stderr()]) expect(text).not.toContain(served.token);
  }, 90_000);
});

/** One upgraded connection to the stand-in Core: the request head it came with and every line read on it. */
interface Link {
  head: string;
  socket: Socket;
  lines: string[];
  /** The relay half-closed its side (stdin ended). */
  ended: boolean;
  send: (text: string) => void;
}

/**
 * A stand-in Core on node:net speaking the relay's wire protocol: it answers the upgrade with 101 (or with `refusal`,
 * then closes) and records each connection's head and lines. What it sends back is the test's to say.
 */
async function standInCore(refusal?: string): Promise<{ port: number; links: Link[]; close: () => Promise<void> }> {
  const links: Link[] = [];
  const sockets = new Set<Socket>();
  // Half-open: the relay's end of stdin is only its end of sending (net's default would close the stand-in's side).
  const server: Server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head: Buffer | undefined = Buffer.alloc(0);
    let link: Link | undefined;
    let pending: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      if (head) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        chunk = head.subarray(end + 4);
        const text = head.subarray(0, end + 4).toString('latin1');
        head = undefined;
        if (refusal !== undefined) return void socket.end(refusal);
        socket.write(
          'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: switchboard-mcp-lines\r\n\r\n',
        );
        link = { head: text, socket, lines: [], ended: false, send: (t) => socket.write(t) };
        links.push(link);
      }
      // Pieces are joined only at a line end: a line of 10 MiB comes in many.
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a)) {
        link!.lines.push(Buffer.concat([...pending, chunk.subarray(0, nl)]).toString('utf8'));
        pending = [];
        chunk = chunk.subarray(nl + 1);
      }
      if (chunk.length) pending.push(chunk);
    });
    socket.on('end', () => {
      if (link) link.ended = true;
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const close = (): Promise<void> =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  cleanup.push(close);
  return { port: (server.address() as { port: number }).port, links, close };
}

/** core.json as the Core writes it (pretty-printed), naming port `port`; pid: a live process, this one. */
function publish(home: string, port: number, token: string, pid = process.pid): void {
  mkdirSync(home, { recursive: true });
  writeFileSync(
    join(home, 'core.json'),
    JSON.stringify(
      {
        url: `http://127.0.0.1:${port}/`,
        ws_url: `ws://127.0.0.1:${port}/ws`,
        mcp_url: `http://127.0.0.1:${port}/mcp`,
        token,
        pid,
        started_at: new Date().toISOString(),
        mode: 'serve',
      },
      null,
      2,
    ) + '\n',
    { mode: 0o600 },
  );
}

function profile(prefix: string): string {
  const home = tempHome(prefix);
  cleanup.push(() => rmSync(home, { recursive: true, force: true }));
  return home;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

const TOKEN = 'stand-in-token-Zq9';

/** A relay on a fresh profile whose core.json names a stand-in Core, once it has connected (before any line). */
async function connected(): Promise<{
  home: string;
  core: Awaited<ReturnType<typeof standInCore>>;
  b: Bridge;
  link: Link;
}> {
  const home = profile('sb-mcp-wire-');
  const core = await standInCore();
  publish(home, core.port, TOKEN);
  const b = bridge(home);
  await until(() => core.links.length === 1, 'the relay connected');
  return { home, core, b, link: core.links[0]! };
}

describe('switchboard mcp and a stand-in Core (the wire protocol)', () => {
  it('connects at start, before any line, with the exact upgrade request', async () => {
    const { core, b } = await connected();
    expect(core.links[0]!.head).toBe(
      `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${core.port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        'Connection: Upgrade\r\nUpgrade: switchboard-mcp-lines\r\n\r\n',
    );
    expect(b.stdout() + b.stderr()).toBe('');
  }, 30_000);

  it('passes the lines on as they are, skipping empty ones, and writes `m` lines to stdout byte for byte', async () => {
    const { b, link } = await connected();
    // Spacing, key order, escapes and a `\r` before the line end: none of it is the relay's to change.
    const sent = ['{ "id" : 1 , "jsonrpc":"2.0","method":"ping" }', '{"jsonrpc":"2.0","id":"\\u00e9","method":"x"}\r'];
    b.write(`${sent[0]}\n\n\r\n${sent[1]}\n`);
    await until(() => link.lines.length === 2, 'two lines');
    expect(link.lines).toEqual(sent);
    // Answers as the Core wrote them: spacing, a non-ASCII character, escapes, one of 3 MiB (many reads).
    const answers = [
      '{ "jsonrpc": "2.0", "id": 1, "result": {} }',
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"text":"é \\u2028 \\"q\\" ✓"}}',
      `{"jsonrpc":"2.0","id":"\\u00e9","result":{"big":"${'y'.repeat(3 * 1024 * 1024)}"}}`,
    ];
    link.send(`a 1\n${answers.map((a) => `m ${a}\n`).join('')}d 1\na 2\nd 2\n`);
    await until(() => b.messages.length === 3, 'three messages');
    expect(b.raw().equals(Buffer.from(answers.map((a) => `${a}\n`).join(''), 'utf8'))).toBe(true);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('a lost connection: the kept answers of lines not done, in order; no_core by id for lines not acked', async () => {
    const { core, b, link } = await connected();
    const kept = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message: 'k' } });
    const lines = [
      line({ id: 1, method: 'tools/call', params: {} }),
      line({ id: 2, method: 'ping' }),
      line({ id: 3, method: 'ping' }),
      line({ id: 4, method: 'ping' }),
      line({ id: 5, method: 'ping' }),
      line({ method: 'notifications/initialized' }),
      line({ id: 7, method: 'ping' }),
      // Not acknowledged: the id last, with an `id` inside params first; a string id in the middle; a notification.
      JSON.stringify({ method: 'tools/call', params: { arguments: { id: 99 } }, jsonrpc: '2.0', id: 'eight' }) + '\n',
      JSON.stringify({ jsonrpc: '2.0', method: 'ping', id: 9, params: { id: 'no' } }) + '\n',
      JSON.stringify({ jsonrpc: '2.0', id: 'ten "x"', method: 'tools/call', params: {} }) + '\n',
      line({ method: 'notifications/cancelled', params: { requestId: 1 } }),
    ];
    b.write(lines.join(''));
    await until(() => link.lines.length === lines.length, 'every line sent');
    // Kept for 1, 2, 3, 4, 5 and 7; 2 and 5 are done; 6 (a notification) has nothing to keep.
    link.send(`a 1 ${kept(1)}\na 2 ${kept(2)}\na 3 ${kept(3)}\nd 2\na 4 ${kept(4)}\na 5 ${kept(5)}\nd 5\na 6\n`);
    link.send(`a 7 ${kept(7)}\n`);
    // The relay reads all of that before the end of the stream.
    link.socket.end();
    await until(() => b.messages.length === 7, 'seven answers');
    expect(b.stdout()).toBe(
      [kept(1), kept(3), kept(4), kept(7)].join('\n') +
        '\n' +
        [
          ['"eight"', true],
          ['9', false],
          ['"ten \\"x\\""', true],
        ]
          .map(([id, tool]) => {
            const text = JSON.stringify(
              `no_core: the connection to the Core at http://127.0.0.1:${core.port}/mcp was lost (closed); the ` +
                'request may have run — the next request finds the Core again through core.json',
            );
            return tool
              ? `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":${text}}],"isError":true}}`
              : `{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":${text}}}`;
          })
          .join('\n') +
        '\n',
    );
    // The relay goes on: the next line finds the Core again (a new connection), and nothing is sent twice.
    b.write(line({ id: 12, method: 'ping' }));
    await until(() => core.links.length === 2 && core.links[1]!.lines.length === 1, 'the next line, reconnected');
    expect(core.links[1]!.lines).toEqual([line({ id: 12, method: 'ping' }).trimEnd()]);
    expect(core.links[0]!.lines).toEqual(lines.map((l) => l.trimEnd()));
    expect(b.child.exitCode).toBeNull();
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('a reset connection is lost as ECONNRESET; a new Core in a rewritten core.json takes the next line', async () => {
    const { home, core: first, b } = await connected();
    b.write(line({ id: 'r', method: 'ping' }));
    await until(() => first.links[0]!.lines.length === 1, 'the line sent');
    first.links[0]!.socket.resetAndDestroy();
    expect(await b.answer('r')).toMatchObject({
      error: { message: expect.stringMatching(/^no_core: the connection to the Core at .* was lost \(ECONNRESET\)/) },
    });
    const second = await standInCore();
    publish(home, second.port, 'second-token-Kx2');
    b.write(call(2, 'echo'));
    await until(() => second.links.length === 1 && second.links[0]!.lines.length === 1, 'the second Core has it');
    const link = second.links[0]!;
    expect(link.head).toContain(`\r\nHost: 127.0.0.1:${second.port}\r\nAuthorization: Bearer second-token-Kx2\r\n`);
    link.send(`a 1\nm {"jsonrpc":"2.0","id":2,"result":{"from":"second"}}\nd 1\n`);
    expect(await b.answer(2)).toEqual({ jsonrpc: '2.0', id: 2, result: { from: 'second' } });
    // The first Core saw one connection and one line: nothing went to it again.
    expect(first.links.map((l) => l.lines)).toEqual([[line({ id: 'r', method: 'ping' }).trimEnd()]]);
    expect(b.stdout() + b.stderr()).not.toMatch(/stand-in-token|second-token/);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('stdin ends: the end line, a half-close, the answers that come after, exit 0 when the Core closes', async () => {
    const { b, link } = await connected();
    b.child.stdin.end(line({ id: 1, method: 'tools/call', params: {} }) + '{"jsonrpc":"2.0","id":2,"method":"pi');
    await until(() => link.ended, 'the relay half-closed');
    // The partial last line was dropped, as the SDK's stdio drops it; the empty line says stdin ended (a FIN alone
    // could be a relay that was killed).
    expect(link.lines).toEqual([line({ id: 1, method: 'tools/call', params: {} }).trimEnd(), '']);
    expect(b.child.exitCode).toBeNull();
    link.send('a 1 {"kept":1}\nm {"jsonrpc":"2.0","id":1,"result":{"late":true}}\nd 1\n');
    link.socket.end();
    expect(await b.exited).toBe(0);
    expect(b.stdout()).toBe('{"jsonrpc":"2.0","id":1,"result":{"late":true}}\n');
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('stdin ends with a line not done when the Core closes: its kept answer is written, then exit 0', async () => {
    const { b, link } = await connected();
    b.child.stdin.end(line({ id: 1, method: 'ping' }));
    await until(() => link.ended, 'the relay half-closed');
    expect(link.lines).toEqual([line({ id: 1, method: 'ping' }).trimEnd(), '']);
    link.send('a 1 {"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"kept"}}\n');
    link.socket.end();
    expect(await b.exited).toBe(0);
    expect(b.stdout()).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"kept"}}\n');
  }, 30_000);

  it('a line over 10 MiB is answered by the relay with its id and never sent; one of exactly 10 MiB is', async () => {
    const { b, link } = await connected();
    const sized = (id: number | string, size: number, idFirst: boolean): string => {
      const base = idFirst
        ? JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { c: '' } })
        : JSON.stringify({ method: 'tools/call', params: { c: '' }, jsonrpc: '2.0', id });
      return base.replace('"c":""', `"c":"${'x'.repeat(size - base.length)}"`);
    };
    b.write(sized(1, MAX_REQUEST_BYTES + 1, false) + '\n');
    b.write(sized('two', 3 * MAX_REQUEST_BYTES, true) + '\n');
    b.write('x'.repeat(MAX_REQUEST_BYTES + 5) + '\n');
    const exact = sized(4, MAX_REQUEST_BYTES, false);
    b.write(exact + '\r\n');
    const payload = {
      code: -32000,
      message:
        'Payload Too Large: the message is over the 10.0 MiB a request may be; write a large file in parts of at ' +
        'most 8.0 MiB, and put a long command in a file',
    };
    expect(await b.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, error: payload });
    expect(await b.answer('two')).toEqual({ jsonrpc: '2.0', id: 'two', error: payload });
    expect(await b.answer(null)).toEqual({ jsonrpc: '2.0', id: null, error: payload });
    await until(() => link.lines.length === 1, 'the line of exactly the limit');
    expect(link.lines[0] === `${exact}\r`).toBe(true);
    expect(b.stderr()).toBe('');
  }, 60_000);

  it('without a Core: ECONNREFUSED and its form per request; a notification gets no answer', async () => {
    const home = profile('sb-mcp-wire-');
    const port = await closedPort();
    publish(home, port, TOKEN);
    const b = bridge(home);
    b.write(line({ method: 'notifications/initialized' }) + initialize(1) + call('c', 'true'));
    const text =
      `no_core: cannot reach the Core at http://127.0.0.1:${port}/mcp: ECONNREFUSED — start one with ` +
      '`switchboard serve` or `npm start`';
    expect(await b.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: text } });
    expect(await b.answer('c')).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      result: { content: [{ type: 'text', text }], isError: true },
    });
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
    expect(b.messages).toHaveLength(2);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('a refused upgrade: 401 is unauthorized, another status no_core with the first line of its body', async () => {
    const home = profile('sb-mcp-wire-');
    const denied = await standInCore('HTTP/1.1 401 Unauthorized\r\nContent-Length: 16\r\n\r\ntoken not valid\n');
    publish(home, denied.port, TOKEN);
    const b = bridge(home);
    b.write(line({ id: 1, method: 'ping' }));
    expect(await b.answer(1)).toMatchObject({
      error: {
        message:
          'unauthorized: token not valid for this Core (HTTP 401) — the token in core.json may be stale; restart ' +
          'the Core',
      },
    });
    const old = await standInCore('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\r\nnot found\nmore\n');
    publish(home, old.port, TOKEN);
    b.write(call(2, 'true'));
    expect(toolError(await b.answer(2))).toBe(
      'no_core: the Core refused the connection (HTTP 404: not found) — update or restart the Core',
    );
    // An older Core, whose refusal of an upgrade to /mcp has no body.
    const older = await standInCore('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    publish(home, older.port, TOKEN);
    b.write(line({ id: 3, method: 'ping' }));
    expect(await b.answer(3)).toMatchObject({
      error: { message: 'no_core: the Core refused the connection (HTTP 404) — update or restart the Core' },
    });
    expect(b.stdout() + b.stderr()).not.toContain(TOKEN);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('a client that closed stdout: the relay exits 0 at its next write, saying nothing', async () => {
    const { core, b } = await connected();
    b.child.stdout.destroy();
    core.links[0]!.send('m {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n');
    expect(await b.exited).toBe(0);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('through Node (`node bin/switchboard.js mcp`): the same relay, the same stdio, its exit status', async () => {
    ensureBuilt();
    const home = profile('sb-mcp-wire-');
    const core = await standInCore();
    publish(home, core.port, TOKEN);
    const b = bridge(home, true);
    b.write(line({ id: 1, method: 'ping' }));
    await until(() => core.links.length === 1 && core.links[0]!.lines.length === 1, 'the line reached the Core');
    const link = core.links[0]!;
    b.child.stdin.end();
    await until(() => link.ended, 'the relay half-closed');
    link.send('a 1\nm {"jsonrpc":"2.0","id":1,"result":{}}\nd 1\n');
    link.socket.end();
    expect(await b.exited).toBe(0);
    expect(b.stdout()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    expect(b.stderr()).toBe('');
    rmSync(join(home, 'core.json'));
    const none = bridge(home, true);
    expect(await none.exited).toBe(1);
    expect(none.stderr()).toMatch(/^switchboard: no Switchboard Core is running \(no .*\)/);
  }, 30_000);

  it('the relay compiles, and loads only modules of perl-base (Essential on Debian: on every machine)', () => {
    const relay = join(repoRoot, 'bin', 'mcp-relay.pl');
    expect(spawnSync('perl', ['-c', relay], { encoding: 'utf8' }).stderr).toBe(`${relay} syntax OK\n`);
    // Every module it loads, once it exited at start (no core.json): `use` loads them all before it runs.
    const r = spawnSync('perl', ['-e', `END { print join("\\n", values %INC) } do ${JSON.stringify(relay)}`], {
      env: { ...process.env, SWITCHBOARD_HOME: profile('sb-mcp-modules-') },
      encoding: 'utf8',
    });
    const loaded = r.stdout.split('\n').filter((m) => m !== relay);
    expect(loaded).toEqual(expect.arrayContaining([expect.stringMatching(/\/IO\/Socket\/IP\.pm$/)]));
    const list = ['perl-base.list', 'perl-base:amd64.list', 'perl-base:arm64.list']
      .map((name) => join('/var/lib/dpkg/info', name))
      .find((path) => existsSync(path));
    // Elsewhere (macOS) perl comes whole.
    if (!list) return;
    const perlBase = new Set(readFileSync(list, 'utf8').split('\n'));
    expect(loaded.filter((m) => !perlBase.has(m))).toEqual([]);
  });

  describe('start-up errors: one stderr line, exit 1', () => {
    const run = (home: string): { status: number | null; stdout: string; stderr: string } => {
      const r = spawnSync(binPath, ['mcp'], {
        env: { ...process.env, SWITCHBOARD_HOME: home },
        encoding: 'utf8',
      });
      return { status: r.status, stdout: r.stdout, stderr: r.stderr };
    };

    it('no core.json', () => {
      const home = profile('sb-mcp-start-');
      expect(run(home)).toEqual({
        status: 1,
        stdout: '',
        stderr:
          `switchboard: no Switchboard Core is running (no ${join(home, 'core.json')}) — start one with ` +
          '`switchboard serve` or `npm start`\n',
      });
    });

    it('a core.json that is not one', () => {
      const home = profile('sb-mcp-start-');
      const invalid = [
        'not json',
        JSON.stringify({ mcp_url: 'http://127.0.0.1:1/mcp', pid: process.pid }),
        JSON.stringify({ mcp_url: 'https://127.0.0.1:1/mcp', token: TOKEN, pid: process.pid }),
        JSON.stringify({ mcp_url: 'http://127.0.0.1:1/mcp', token: 'a b', pid: process.pid }),
      ];
      for (const text of invalid) {
        writeFileSync(join(home, 'core.json'), text);
        expect(run(home)).toEqual({
          status: 1,
          stdout: '',
          stderr:
            `switchboard: ${join(home, 'core.json')} is not a valid core file — restart the Core ` +
            '(`switchboard serve`)\n',
        });
      }
    });

    it('a Core that has exited, and never a token', () => {
      const home = profile('sb-mcp-start-');
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
        encoding: 'utf8',
      });
      const pid = Number(gone.stdout);
      publish(home, 1, TOKEN, pid);
      const r = run(home);
      expect(r).toEqual({
        status: 1,
        stdout: '',
        stderr:
          `switchboard: no Switchboard Core is running (the one in ${join(home, 'core.json')}, pid ${pid}, has ` +
          'exited) — start one with `switchboard serve` or `npm start`\n',
      });
      expect(r.stderr).not.toContain(TOKEN);
    });
  });
});
