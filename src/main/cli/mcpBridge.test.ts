// `switchboard mcp` (cli/bridge/mcpBridge.ts) as clients run it, against a real Core: what a stdio client sees, the
// MCP SDK's own client over it, `--profile`, no Core at all, the Core killed mid-call and started again, malformed
// lines. A stand-in Core on node:http shows what only it can: the bytes of each POST, a connection cut after the
// Core read the request, a refusal that is not the Core's.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { MAX_REQUEST_BYTES } from '../../shared/limits.js';
import {
  binPath,
  cliPath,
  ensureBuilt,
  mcpHttpClient,
  servedProfile,
  startServe,
  tempHome,
  type Served,
} from '../../../scripts/cliHarness.js';
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

/** A running `switchboard mcp`: every message it wrote, the answer to an id, and how it ended. */
interface Bridge {
  child: ChildProcessWithoutNullStreams;
  messages: Message[];
  stdout: () => string;
  stderr: () => string;
  write: (text: string) => void;
  answer: (id: unknown) => Promise<Message>;
  exited: Promise<number | null>;
}

/**
 * `switchboard mcp` as a client starts it: bin/switchboard (`throughNode`: `node bin/switchboard.js mcp`), with `args`
 * after `mcp`, SWITCHBOARD_HOME `home` (undefined: none).
 */
function bridge(home: string | undefined, args: string[] = [], throughNode = false): Bridge {
  const [command, argv] = throughNode ? [process.execPath, [cliPath, 'mcp', ...args]] : [binPath, ['mcp', ...args]];
  const env: Record<string, string | undefined> = { ...process.env, SWITCHBOARD_HOME: home };
  if (home === undefined) delete env.SWITCHBOARD_HOME;
  const child = spawn(command, argv, { env, stdio: ['pipe', 'pipe', 'pipe'] });
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
  // A bridge that exits early closes its stdin: writes after that are not this test's failure to report.
  child.stdin.on('error', () => undefined);
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return {
    child,
    messages,
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
const progressOf = (b: Bridge): Message[] =>
  b.messages.filter((m) => (m as { method?: string }).method === 'notifications/progress');

function profile(prefix: string, work?: string): string {
  const home = tempHome(prefix);
  cleanup.push(() => rmSync(home, { recursive: true, force: true }));
  if (work)
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${work} }\n`);
  return home;
}

/** `switchboard serve` on `home`, stopped after the case. */
async function serve(home: string): Promise<Served> {
  const served = await startServe(home);
  cleanup.push(() => served.stop());
  return served;
}

/** SIGKILL: the Core gets no chance to answer anything; its core.json stays behind. */
async function killHard(served: Served): Promise<void> {
  const died = new Promise((r) => served.child.once('exit', r));
  served.child.kill('SIGKILL');
  await died;
}

describe('switchboard mcp against a real Core', () => {
  const { home, served: core } = servedProfile('sb-mcp-bridge-', { beforeAll, afterAll }, true);

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
    await Promise.all([1, 2, 3, 4, 5].map((id) => b.answer(id)));
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
    expect(b.messages.map((m) => m.id).sort()).toEqual([1, 2, 3, 4, 5]);
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
    expect(b.stdout()).not.toContain(core().token);
  }, 30_000);

  it('still writes the answer of a call running when stdin ends, then exits 0', async () => {
    const b = bridge(home);
    b.child.stdin.end(initialize(1) + call(2, 'sleep 1; echo late'));
    expect(await b.exited).toBe(0);
    expect(b.messages.map((m) => m.id)).toEqual([1, 2]);
    expect(output(b.messages[1]!)).toBe('late\n');
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('takes a last line without its newline when stdin ends', async () => {
    const b = bridge(home);
    b.child.stdin.end(initialize(1) + call(2, 'echo unterminated').trimEnd());
    expect(await b.exited).toBe(0);
    expect(output(await b.answer(2))).toBe('unterminated\n');
  }, 30_000);

  it('passes the progress of a call on as it comes, then its answer', async () => {
    const b = bridge(home);
    b.write(initialize() + initialized + call(1, 'sleep 2.5; echo slow', { progressToken: 'p1' }));
    expect(output(await b.answer(1))).toBe('slow\n');
    const progress = progressOf(b);
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({ params: { progressToken: 'p1', message: expect.stringMatching(/^running/) } });
    // Each before the answer.
    expect(b.messages.indexOf(progress.at(-1)!)).toBeLessThan(b.messages.findIndex((m) => m.id === 1));
  }, 30_000);

  it('answers malformed lines as JSON-RPC says, with the id when there is one; the next line still runs', async () => {
    const b = bridge(home);
    b.write(initialize() + initialized);
    await b.answer(0);
    b.write('{"jsonrpc": "2.0", "id": 7, "method":\n');
    b.write(line({ id: 8, method: 3 }));
    b.write(line({ id: 'x', method: 'ping', extra: 1 }));
    b.write('\r\n\n');
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
    b.write(call(10, 'echo after').replace('\n', '\r\n'));
    expect(output(await b.answer(10))).toBe('after\n');
    expect(await b.answer(null)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error: Invalid JSON' },
    });
    expect(await b.answer(8)).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32600, message: 'Invalid Request: method must be a string' },
    });
    expect(await b.answer('x')).toMatchObject({ error: { code: -32600, message: /^Invalid Request: .*"extra"/ } });
    expect(await b.answer(9)).toMatchObject({
      error: { code: -32000, message: expect.stringMatching(/^Payload Too Large/) },
    });
    expect(b.messages.filter((m) => m.id === null)).toHaveLength(1);
    expect(b.stderr()).toBe('');
  }, 60_000);

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

  it('the SDK client over it: tools, a call with progress, a call it gives up on (cancelled at the Core)', async () => {
    const client = new Client({ name: 'sdk-over-stdio', version: '1' });
    await client.connect(
      new StdioClientTransport({ command: binPath, args: ['mcp'], env: { ...process.env, SWITCHBOARD_HOME: home } }),
    );
    cleanup.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('list_targets');
    const notes: string[] = [];
    const slow = await client.callTool({ name: 'terminal', arguments: { command: 'sleep 1.5; echo sdk' } }, undefined, {
      onprogress: (p) => notes.push(p.message ?? ''),
      resetTimeoutOnProgress: true,
    });
    expect((slow.structuredContent as { output: string }).output).toBe('sdk\n');
    expect(notes[0]).toMatch(/^running on local/);
    const seconds = uniqueSleep();
    const giveUp = new AbortController();
    const abandoned = client.callTool({ name: 'terminal', arguments: { command: `sleep ${seconds}` } }, undefined, {
      signal: giveUp.signal,
    });
    await until(() => sleepRunning(seconds), 'the command started');
    giveUp.abort('the agent moved on');
    await expect(abandoned).rejects.toThrow();
    await until(() => !sleepRunning(seconds), 'the Core stopped the command');
  }, 60_000);

  it('the client closing stdout: the bridge exits 0 at its next write, saying nothing', async () => {
    const b = bridge(home);
    b.write(initialize());
    await b.answer(0);
    b.child.stdout.destroy();
    b.write(line({ id: 1, method: 'ping' }));
    expect(await b.exited).toBe(0);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('--profile chooses the profile, whatever SWITCHBOARD_HOME says (or without it)', async () => {
    const elsewhere = profile('sb-mcp-other-');
    for (const args of [['--profile', home], [`--profile=${home}`]]) {
      for (const env of [elsewhere, undefined]) {
        const b = bridge(env, args);
        b.write(initialize() + call(1, 'echo profiled'));
        expect(output(await b.answer(1))).toBe('profiled\n');
        b.child.stdin.end();
        expect(await b.exited).toBe(0);
        expect(b.stderr()).toBe('');
      }
    }
    // Through Node too, as a client that starts `node bin/switchboard.js` runs it.
    const node = bridge(elsewhere, ['--profile', home], true);
    node.write(initialize() + call(1, 'echo node'));
    expect(output(await node.answer(1))).toBe('node\n');
    // The help names it.
    const help = spawnSync(process.execPath, [cliPath, 'mcp', '--help'], { encoding: 'utf8' });
    expect(help.stdout).toMatch(/--profile <path>/);
  }, 60_000);
});

describe('switchboard mcp when there is no Core, and when it goes away and comes back', () => {
  beforeAll(() => ensureBuilt());

  it('no Core: initialize and every request are answered with how to start one, until one starts', async () => {
    const work = profile('sb-mcp-none-work-');
    const home = profile('sb-mcp-none-', work);
    const b = bridge(home);
    b.write(line({ method: 'notifications/initialized' }) + initialize(1) + call('c', 'true'));
    const text =
      `no_core: no Switchboard Core is running (no ${join(home, 'core.json')}) — start one with ` +
      '`switchboard serve` or `npm start`';
    expect(await b.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: text } });
    expect(await b.answer('c')).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      result: { content: [{ type: 'text', text }], isError: true },
    });
    // The notification got nothing; stderr has the one line a client's log shows.
    expect(b.messages).toHaveLength(2);
    expect(b.stderr()).toMatch(/^switchboard: no Switchboard Core is running \(no .*core\.json\) — start one .*\n$/);
    await serve(home);
    b.write(initialize(2) + call(3, 'echo found'));
    expect(await b.answer(2)).toMatchObject({ result: { serverInfo: { name: 'switchboard' } } });
    expect(output(await b.answer(3))).toBe('found\n');
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
  }, 60_000);

  it('the Core killed mid-call: answered at once, not sent again; no Core meanwhile; the next Core works', async () => {
    const work = profile('sb-mcp-kill-work-');
    const home = profile('sb-mcp-kill-', work);
    let served = await serve(home);
    const b = bridge(home);
    b.write(initialize() + initialized + call(1, 'echo one'));
    expect(output(await b.answer(1))).toBe('one\n');
    // Two calls the Core has when it dies: one still silent, one whose answer has begun (its progress came).
    b.write(call(2, 'echo ran >> ran.txt; sleep 30'));
    b.write(call('2b', 'sleep 30', { progressToken: 'p' }));
    await until(() => existsSync(join(work, 'ran.txt')), 'the call ran');
    await until(() => progressOf(b).length > 0, 'progress');
    await killHard(served);
    const lost =
      /^no_core: the connection to the Core at http:\/\/127\.0\.0\.1:\d+\/mcp was lost \(.+\); the request may/;
    for (const id of [2, '2b']) expect(toolError(await b.answer(id))).toMatch(lost);
    // No Core: a call is answered at once with why (its core.json names a process that is gone).
    b.write(call(3, 'echo none'));
    expect(toolError(await b.answer(3))).toMatch(
      /^no_core: no Switchboard Core is running \(the one in .*, has exited\)/,
    );
    served = await serve(home);
    b.write(call(4, 'echo back'));
    expect(output(await b.answer(4))).toBe('back\n');
    expect(readFileSync(join(work, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(b.messages.filter((m) => m.id === 0)).toHaveLength(1);
    expect(b.stderr()).toBe('');
    for (const text of [b.stdout(), b.stderr()]) expect(text).not.toContain(served.token);
  }, 90_000);

  it('a restarted Core on a new port and token is found through core.json', async () => {
    const work = profile('sb-mcp-moved-work-');
    const home = profile('sb-mcp-moved-', work);
    const first = await serve(home);
    const b = bridge(home);
    b.write(initialize() + call(1, 'echo first'));
    expect(output(await b.answer(1))).toBe('first\n');
    await first.stop();
    // Without the kept endpoint, the next Core takes a new port and a new token.
    rmSync(join(home, 'state', 'endpoint.json'));
    const second = await serve(home);
    expect(second.url).not.toBe(first.url);
    b.write(call(2, 'echo second'));
    expect(output(await b.answer(2))).toBe('second\n');
    expect(b.stderr()).toBe('');
  }, 60_000);

  /** A served Core on a profile of its own, and the SDK's client of its /mcp over HTTP. */
  async function overHttp(prefix: string): Promise<{ work: string; home: string; served: Served; client: Client }> {
    const work = profile(`${prefix}work-`);
    const home = profile(prefix, work);
    const served = await serve(home);
    const client = await mcpHttpClient(served, prefix);
    cleanup.push(() => client.close());
    return { work, home, served, client };
  }
  /** The client waits longer than the case may run: a call that is never answered fails the case by its timeout. */
  const patient = { timeout: 600_000 };

  it('over HTTP, a call without progress fails at once when the Core is killed', async () => {
    const { work, served, client } = await overHttp('sb-mcp-http-kill-');
    const command = 'echo ran >> ran.txt; sleep 30';
    const pending = client.callTool({ name: 'terminal', arguments: { command } }, undefined, patient).then(
      () => new Error('answered'),
      (err: unknown) => err,
    );
    await until(() => existsSync(join(work, 'ran.txt')), 'the call ran');
    await killHard(served);
    expect(String(await pending)).toMatch(/fetch failed/);
  }, 60_000);

  it('the Core stopped mid-call: each call, streaming or not, HTTP or stdio, is ended and answered why', async () => {
    const { home, served, client } = await overHttp('sb-mcp-stop-');
    const [quiet, streaming, bridged] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const settled = (p: Promise<unknown>): Promise<unknown> =>
      p.then(
        (r) => r,
        (err: unknown) => err,
      );
    const calls = [
      settled(client.callTool({ name: 'terminal', arguments: { command: `sleep ${quiet}` } }, undefined, patient)),
      settled(
        client.callTool({ name: 'terminal', arguments: { command: `sleep ${streaming}` } }, undefined, {
          ...patient,
          onprogress: () => undefined,
        }),
      ),
    ];
    const b = bridge(home);
    b.write(initialize() + call(1, `sleep ${bridged}`, { progressToken: 'p' }));
    await until(() => [quiet, streaming, bridged].every(sleepRunning), 'the three calls run');
    await until(() => progressOf(b).length > 0, 'the bridged call sent progress');
    const stopped = served.stop();
    const text = /^no_core: the Core stopped while this call ran, and ended it — start the Core again/;
    for (const r of await Promise.all(calls))
      expect((r as { isError?: boolean; content: Array<{ text: string }> }).content[0]!.text).toMatch(text);
    expect(toolError(await b.answer(1))).toMatch(text);
    await stopped;
    for (const s of [quiet, streaming, bridged]) expect(sleepRunning(s)).toBe(false);
  }, 60_000);

  it('a Core killed with SIGKILL and never reaped (a zombie) holds no profile: the next one starts', async () => {
    const work = profile('sb-mcp-zombie-work-');
    const home = profile('sb-mcp-zombie-', work);
    // A parent that never reaps, as a container's first process may be: the dead Core stays a zombie.
    const parent = spawn(
      'python3',
      [
        '-c',
        'import subprocess, sys, time\n' +
          'p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)\n' +
          'print(p.pid, flush=True)\ntime.sleep(600)\n',
        process.execPath,
        cliPath,
        'serve',
        '--port',
        '0',
      ],
      { env: { ...process.env, SWITCHBOARD_HOME: home }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    cleanup.push(() => void parent.kill('SIGKILL'));
    const pid = Number(await new Promise<string>((r) => parent.stdout.setEncoding('utf8').once('data', r)));
    await until(() => existsSync(join(home, 'core.json')), 'the first Core is up');
    process.kill(pid, 'SIGKILL');
    const state = (): string => {
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      return stat[stat.lastIndexOf(')') + 2]!;
    };
    await until(() => state() === 'Z', 'the first Core is a zombie');
    // The bridge sees no Core in it,
    const b = bridge(home);
    b.write(initialize());
    expect((await b.answer(0)).error).toMatchObject({ message: expect.stringMatching(/pid \d+, has exited/) });
    // and a new Core takes the profile at once.
    const next = await serve(home);
    b.write(call(1, 'echo next'));
    expect(output(await b.answer(1))).toBe('next\n');
    expect(state()).toBe('Z');
    expect(next.url).toMatch(/^http:/);
  }, 60_000);
});

/** A stand-in Core on node:http: each POST's headers and body as it came; what it answers is the case's to say. */
async function standInCore(
  answer: (req: IncomingMessage, body: string, res: ServerResponse) => void,
): Promise<{ port: number; posts: Array<{ headers: IncomingMessage['headers']; body: string }> }> {
  const posts: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      posts.push({ headers: req.headers, body });
      answer(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { port: (server.address() as { port: number }).port, posts };
}

/** core.json as the Core writes it, naming port `port`; pid: a live process, this one. */
function publish(home: string, port: number, token: string, pid = process.pid): void {
  mkdirSync(home, { recursive: true });
  const url = `http://127.0.0.1:${port}/`;
  const info = { url, ws_url: `ws://127.0.0.1:${port}/ws`, mcp_url: `${url}mcp`, token, pid, mode: 'serve' };
  writeFileSync(join(home, 'core.json'), JSON.stringify({ ...info, started_at: new Date().toISOString() }), {
    mode: 0o600,
  });
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  return port;
}

const TOKEN = 'stand-in-token-Zq9';
const json = (res: ServerResponse, status: number, value: unknown): void =>
  void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));

describe('switchboard mcp and a stand-in Core (what goes over HTTP)', () => {
  beforeAll(() => ensureBuilt());

  it('each message is POSTed once, as it came, with the token and the bridge own client id', async () => {
    const core = await standInCore((_req, body, res) => {
      const m = JSON.parse(body) as { id?: number; method: string };
      if (m.id === undefined) return void res.writeHead(202).end();
      json(res, 200, {
        jsonrpc: '2.0',
        id: m.id,
        result: m.method === 'initialize' ? { protocolVersion: '2025-06-18' } : {},
      });
    });
    const home = profile('sb-mcp-wire-');
    publish(home, core.port, TOKEN);
    const b = bridge(home);
    b.write(initialize(1) + initialized);
    await b.answer(1);
    b.write(line({ id: 2, method: 'ping' }) + line({ method: 'notifications/x' }));
    await b.answer(2);
    await until(() => core.posts.length === 3, 'three POSTs');
    // initialized is not sent: the Core keeps no session for it to change.
    expect(core.posts.map((p) => JSON.parse(p.body).method)).toEqual(['initialize', 'ping', 'notifications/x']);
    const session = core.posts[0]!.headers['mcp-session-id'];
    expect(session).toMatch(/^[0-9a-f]{32}$/);
    for (const p of core.posts) {
      expect(p.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(p.headers['mcp-session-id']).toBe(session);
    }
    // After initialize, the version it agreed goes with every POST.
    expect(core.posts[1]!.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(b.stdout() + b.stderr()).not.toContain(TOKEN);
  }, 30_000);

  it('a connection cut after the Core read the request: answered as lost, never sent again', async () => {
    const core = await standInCore((req, body, res) => {
      if (JSON.parse(body).id === 'r') return void req.socket.destroy();
      json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: {} });
    });
    const home = profile('sb-mcp-wire-');
    publish(home, core.port, TOKEN);
    const b = bridge(home);
    b.write(call('r', 'true'));
    expect(toolError(await b.answer('r'))).toMatch(/^no_core: the connection to the Core at .* was lost \(.+\); the/);
    b.write(line({ id: 3, method: 'ping' }));
    expect(await b.answer(3)).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    expect(core.posts.map((p) => JSON.parse(p.body).id)).toEqual(['r', 3]);
  }, 30_000);

  it('a refusal: the Core error with the request id; another status as no_core; 401 as unauthorized', async () => {
    const core = await standInCore((_req, body, res) => {
      const { id } = JSON.parse(body) as { id: number };
      if (id === 1) json(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: x' } });
      else if (id === 2) res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\nmore\n');
      else res.writeHead(401, { 'content-type': 'text/plain' }).end('token not valid for this Core\n');
    });
    const home = profile('sb-mcp-wire-');
    publish(home, core.port, TOKEN);
    const b = bridge(home);
    b.write(line({ id: 1, method: 'ping' }) + call(2, 'true') + line({ id: 3, method: 'ping' }));
    expect(await b.answer(1)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'Bad Request: x' } });
    expect(toolError(await b.answer(2))).toBe(
      'no_core: the Core refused the request (HTTP 404: not found) — update or restart the Core',
    );
    expect(await b.answer(3)).toMatchObject({ error: { message: /^unauthorized: token not valid for this Core/ } });
  }, 30_000);

  it('a closed port: ECONNREFUSED; a core.json rewritten for a live Core takes the same request', async () => {
    const home = profile('sb-mcp-wire-');
    const port = await closedPort();
    publish(home, port, TOKEN);
    const b = bridge(home);
    b.write(initialize(1));
    expect(await b.answer(1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: {
        code: -32000,
        message:
          `no_core: cannot reach the Core at http://127.0.0.1:${port}/mcp: ECONNREFUSED — start one with ` +
          '`switchboard serve` or `npm start`',
      },
    });
    // A request that never reached the first Core goes to the one core.json names now, once.
    const core = await standInCore((_req, body, res) =>
      json(res, 200, { jsonrpc: '2.0', id: JSON.parse(body).id, result: {} }),
    );
    publish(home, core.port, 'second-token-Kx2');
    b.write(line({ id: 2, method: 'ping' }));
    expect(await b.answer(2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(core.posts.map((p) => p.headers.authorization)).toEqual(['Bearer second-token-Kx2']);
    b.child.stdin.end();
    expect(await b.exited).toBe(0);
    expect(b.stderr()).toBe('');
  }, 30_000);

  it('core.json that is not one, or names a process that has exited: said per request, never a token', async () => {
    const home = profile('sb-mcp-wire-');
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    publish(home, 1, TOKEN, Number(gone.stdout));
    const b = bridge(home);
    b.write(line({ id: 1, method: 'ping' }));
    expect(await b.answer(1)).toMatchObject({
      error: { message: expect.stringMatching(`pid ${gone.stdout}, has exited\\) — start one`) },
    });
    writeFileSync(join(home, 'core.json'), '{"mcp_url": "http://127.0.0.1:1/mcp"');
    b.write(line({ id: 2, method: 'ping' }));
    expect(await b.answer(2)).toMatchObject({
      error: {
        message:
          `no_core: ${join(home, 'core.json')} is not a valid core file — ` + 'restart the Core (`switchboard serve`)',
      },
    });
    expect(b.stdout() + b.stderr()).not.toContain(TOKEN);
  }, 30_000);
});
