// An agent's long waits and long outputs over MCP, through the SDK's own client against a real `switchboard serve`,
// over Streamable HTTP and over `switchboard mcp` (stdio): a call held for a person's approval sends progress that
// keeps a client with a short timeout waiting; a short call still answers plain JSON; a 20 MB output is paged back
// whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { PendingApproval } from '../../../shared/approvals.js';
import {
  ensureBuilt,
  mcpClients,
  runCli,
  runCliAtTerminal,
  startServe,
  tempHome,
  type Served,
} from '../../../../scripts/cliHarness.js';

const root = realpathSync(tempHome('sb-mcp-wait-'));
// The targets' directories lie outside the profile (a command that changes the profile is refused outright).
const home = join(root, 'profile');
const dirs = { a: join(root, 'work-a'), b: join(root, 'work-b') };
let served: Served;
let http: Client;
let stdio: Client;

beforeAll(async () => {
  ensureBuilt();
  for (const d of [home, ...Object.values(dirs)]) mkdirSync(d);
  writeFileSync(
    join(home, 'config.yaml'),
    [
      'terminal:',
      '  default_target: a',
      '  targets:',
      `    a: { backend: local, cwd: ${dirs.a} }`,
      `    b: { backend: local, cwd: ${dirs.b} }`,
      'approvals:',
      '  mode: ask',
      '  timeout: 600',
      '',
    ].join('\n'),
  );
  served = await startServe(home);
  ({ http, stdio } = await mcpClients(home, served, 'wait'));
}, 60_000);

afterAll(async () => {
  await stdio?.close().catch(() => undefined);
  await http?.close().catch(() => undefined);
  await served?.stop();
  rmSync(root, { recursive: true, force: true });
});

type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };

/** A tool's result object; a tool error rejects with its one line of text. */
async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallResult;
  const text = r.content[0]?.text ?? '';
  if (r.isError) throw new Error(text);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A directory with a file in it, that the held command would delete. */
function canary(name: string): void {
  mkdirSync(join(dirs.a, name));
  writeFileSync(join(dirs.a, name, 'keep'), 'x');
}

/** The approvals the Core holds, as `switchboard approvals list` shows them. */
async function pendingList(): Promise<PendingApproval[]> {
  const r = await runCli(home, ['approvals', 'list', '--json']);
  return (JSON.parse(r.stdout) as { approvals: PendingApproval[] }).approvals;
}

/** The approval the Core holds for `command`, once it holds it. */
async function pendingFor(command: string): Promise<PendingApproval> {
  for (const end = Date.now() + 10_000; Date.now() < end; ) {
    const found = (await pendingList()).find((a) => a.command === command);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`"${command}" was not held for approval`);
}

/** Whether the Core still holds an approval for `command`. */
async function pendingOrNot(command: string): Promise<boolean> {
  return (await pendingList()).some((a) => a.command === command);
}

const clients = (): Array<[string, Client]> => [
  ['http', http],
  ['stdio', stdio],
];

describe('a call held for approval keeps its client waiting with progress', () => {
  for (const via of ['http', 'stdio']) {
    it(`over ${via}: a 4.5 s timeout that restarts on progress outlasts a person who approves after 8 s`, async () => {
      const client = clients().find(([v]) => v === via)![1];
      canary(`gone-${via}`);
      const command = `rm -rf ./gone-${via} && echo removed`;
      const notes: Progress[] = [];
      const started = Date.now();
      const call = client.callTool({ name: 'terminal', arguments: { command, execution_target: 'a' } }, undefined, {
        timeout: 4500,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: 60_000,
        onprogress: (p) => notes.push(p),
      }) as Promise<CallResult>;
      const failed = call.then(
        () => undefined,
        (err: unknown) => err,
      );
      const pending = await pendingFor(command);
      // The person answers 8 s after the call was made, through the person's own path (a terminal of their own).
      await new Promise((r) => setTimeout(r, Math.max(0, 8000 - (Date.now() - started))));
      expect(await Promise.race([failed, 'still waiting'])).toBe('still waiting');
      const approved = await runCliAtTerminal(home, ['approvals', 'approve', pending.id]);
      expect(approved.status).toBe(0);
      const result = await call;
      expect(result.isError).toBeFalsy();
      expect(JSON.parse(result.content[0]!.text!)).toMatchObject({ exit_code: 0, output: 'removed\n' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(8000);
      // Said at once and then every few seconds: what it waits for, on which target, since when and until when. Once
      // approved, a call that has run for a second may say so before it answers ("running on a for 8 s").
      const waiting = notes.filter((n) => !/^running on a for \d+ s/.test(n.message ?? ''));
      expect(waiting.length).toBeGreaterThanOrEqual(3);
      for (const n of waiting)
        expect(n.message).toMatch(/^waiting for a person to approve on a \(asked \d+ s ago, denies in \d+:\d\d\)$/);
      // The wait is counted: asked and left add up to approvals.timeout (600 s), give or take a rounding.
      const [, asked, min, sec] = /asked (\d+) s ago, denies in (\d+):(\d\d)/
        .exec(waiting.at(-1)!.message!)!
        .map(Number);
      expect(asked).toBeGreaterThanOrEqual(6);
      expect(Math.abs(asked! + min! * 60 + sec! - 600)).toBeLessThanOrEqual(1);
      for (let i = 1; i < notes.length; i++) expect(notes[i]!.progress).toBeGreaterThan(notes[i - 1]!.progress);
    }, 30_000);
  }

  it('switchboard call at a terminal shows progress on one line, cleared when it is answered', async () => {
    const r = await runCliAtTerminal(home, ['call', 'terminal', JSON.stringify({ command: 'sleep 1.6; echo done' })]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/\x1b\[Krunning on a for [12] s\x1b\[Kdone\n/);
  });

  it('over http a client that drops the event stream of a held call withdraws it; nothing runs', async () => {
    canary('dropped-stream');
    const command = 'rm -rf ./dropped-stream';
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'terminal', arguments: { command }, _meta: { progressToken: 7 } },
    });
    const url = new URL(`${served.url}mcp`);
    const first = await new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${served.token}`,
          },
        },
        (res) => {
          res.setEncoding('utf8');
          res.once('data', (d: string) => {
            resolve(`${res.headers['content-type']}\n${d}`);
            req.destroy();
          });
        },
      );
      req.on('error', () => undefined);
      req.once('timeout', () => reject(new Error('no event')));
      req.end(body);
    });
    expect(first).toMatch(/^text\/event-stream\nevent: message\ndata: .*waiting for a person to approve on a/);
    for (let i = 0; i < 50 && (await pendingOrNot(command)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await pendingOrNot(command)).toBe(false);
    expect(readFileSync(join(dirs.a, 'dropped-stream', 'keep'), 'utf8')).toBe('x');
    expect(await tool(http, 'terminal', { command: 'echo still-served' })).toMatchObject({ output: 'still-served\n' });
  });

  it('over http without a progressToken the wait sends nothing and the client gives up at its timeout', async () => {
    canary('silent');
    const command = 'rm -rf ./silent';
    const err = await http.callTool({ name: 'terminal', arguments: { command } }, undefined, { timeout: 1500 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ message: expect.stringMatching(/timed out/i) });
  });

  it('a running call says how much it printed; a short call is still answered as plain JSON', async () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${served.token}`,
    };
    const call = (id: number, command: string) =>
      fetch(`${served.url}mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'terminal', arguments: { command }, _meta: { progressToken: `t${id}` } },
        }),
      });
    const short = await call(1, 'echo quick');
    expect(short.headers.get('content-type')).toBe('application/json');
    expect(
      ((await short.json()) as { result: { content: Array<{ text: string }> } }).result.content[0]!.text,
    ).toContain('quick');
    const long = await call(2, 'head -c 3000000 /dev/zero | tr "\\0" x; sleep 2.5; echo; echo done');
    expect(long.headers.get('content-type')).toBe('text/event-stream');
    const events = (await long.text())
      .split('\n\n')
      .filter((e) => e.startsWith('event: message\ndata: '))
      .map((e) => JSON.parse(e.slice('event: message\ndata: '.length)) as Record<string, unknown>);
    const progress = events.filter((e) => e.method === 'notifications/progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]).toMatchObject({
      params: {
        progressToken: 't2',
        message: expect.stringMatching(/^running on a for \d+ s, 3\.0 MB of output so far$/),
      },
    });
    expect(events.at(-1)).toMatchObject({ id: 2, result: { content: [{ type: 'text' }] } });

    // A batch whose quick call was answered before the slow one sent progress: both answers are on the stream.
    const batch = await fetch(`${served.url}mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'terminal', arguments: { command: 'echo q' } } },
        {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'terminal', arguments: { command: 'sleep 1.5; echo s' }, _meta: { progressToken: 4 } },
        },
      ]),
    });
    expect(batch.headers.get('content-type')).toBe('text/event-stream');
    const ids = (await batch.text())
      .split('\n\n')
      .filter((e) => e.startsWith('event: message\ndata: '))
      .map((e) => (JSON.parse(e.slice('event: message\ndata: '.length)) as { id?: number }).id);
    expect(ids.filter((id) => id !== undefined).sort()).toEqual([3, 4]);
  });
});

describe('a 20 MB output is kept and paged back whole with read_output', () => {
  /** 20 MB of lines that mix ASCII with 2-, 3- and 4-byte UTF-8 chars. */
  const big = join(dirs.a, 'big.txt');
  const lines: string[] = [];
  for (let i = 0, size = 0; size < 20_000_000; i++) {
    const line = `${String(i).padStart(7, '0')} é€😀 ${'abcdefghij'.repeat(i % 7)}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  const content = lines.join('');

  for (const via of ['http', 'stdio']) {
    it(`over ${via}: the cut result gives an output_id; slices read back byte-identical`, async () => {
      const client = clients().find(([v]) => v === via)![1];
      writeFileSync(big, content);
      const r = await tool(client, 'terminal', { command: 'cat big.txt', execution_target: 'a' });
      expect(r).toMatchObject({ truncated: true, exit_code: 0, output_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      let back = '';
      let offset: number | undefined = 0;
      let calls = 0;
      while (offset !== undefined) {
        const slice = await tool(client, 'read_output', { output_id: r.output_id, offset, limit: 4 * 1024 * 1024 });
        expect(slice).toMatchObject({ offset, total_chars: content.length, execution_target: 'a' });
        back += slice.output as string;
        offset = slice.next_offset as number | undefined;
        expect(slice.has_more).toBe(offset !== undefined);
        calls++;
      }
      expect(calls).toBe(Math.ceil(content.length / (4 * 1024 * 1024)));
      expect(Buffer.from(back).equals(readFileSync(big))).toBe(true);
    }, 120_000);
  }

  it('bad ids, offsets and targets each get one clear error line', async () => {
    const r = await tool(http, 'terminal', { command: 'head -c 200000 /dev/zero | tr "\\0" y', execution_target: 'a' });
    const id = r.output_id as string;
    const refusals: Array<[Record<string, unknown>, RegExp]> = [
      [{ output_id: 'nope' }, /^bad_request: read_output: .*output_id is the 32 hex chars a cut result gave/],
      [{ output_id: '../../core.json' }, /^bad_request: read_output: .*output_id is the 32 hex chars/],
      [{ output_id: '0'.repeat(32) }, /^unknown_output: no output "0{32}" is kept — use the output_id of a cut/],
      [{ output_id: id, offset: -1 }, /^bad_request: read_output: .*offset counts chars from 0/],
      [
        { output_id: id, offset: 200_001 },
        /^bad_request: offset 200001 is past the end of output [0-9a-f]{32} \(200000 chars\)/,
      ],
      [{ output_id: id, limit: 0 }, /^bad_request: read_output: .*limit/],
      [{ output_id: id, limit: 5_000_000 }, /^bad_request: read_output: .*limit may be at most 4194304 chars/],
      [{ output_id: id, execution_target: 'b' }, /^unknown_output: no output "[0-9a-f]{32}" of target "b" is kept/],
    ];
    for (const [args, expected] of refusals) {
      const err = (await tool(http, 'read_output', args).then(
        () => new Error('answered'),
        (e: Error) => e,
      )) as Error;
      expect(err.message).toMatch(expected);
      expect(err.message).not.toContain('\n');
    }
    expect(await tool(stdio, 'read_output', { output_id: id, offset: 199_990 })).toMatchObject({
      output: 'y'.repeat(10),
      offset: 199_990,
      total_chars: 200_000,
      has_more: false,
    });
  });

  it('a cut execute_code result is kept whole too', async () => {
    const code = 'import sys\nfor i in range(20000):\n    sys.stdout.write("row %d\\n" % i)\n';
    const r = await tool(http, 'execute_code', { code, execution_target: 'b' });
    expect(r).toMatchObject({ truncated: true, output_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const whole = await tool(http, 'read_output', { output_id: r.output_id, limit: 4_000_000 });
    expect(whole.output).toBe(Array.from({ length: 20_000 }, (_, i) => `row ${i}\n`).join(''));
    expect(whole).toMatchObject({ execution_target: 'b', has_more: false });
  });

  it("inside execute_code, read_output finds only the outputs of the script's own target", async () => {
    const r = await tool(http, 'terminal', { command: 'head -c 100000 /dev/zero | tr "\\0" z', execution_target: 'a' });
    const code = [
      'import switchboard_tools as sb',
      'try:',
      `    print("read", sb.read_output("${r.output_id as string}", limit=5)["output"])`,
      'except sb.SwitchboardToolError as e:',
      '    print("refused:", e)',
    ].join('\n');
    const onB = await tool(http, 'execute_code', { code, execution_target: 'b' });
    expect(onB.output).toMatch(/^refused: .*no output "[0-9a-f]{32}" of target "b" is kept/);
    expect(await tool(http, 'execute_code', { code, execution_target: 'a' })).toMatchObject({ output: 'read zzzzz\n' });
  });

  it('process log pages a background process in the same words (offset, limit, next_offset, has_more)', async () => {
    const bg = await tool(http, 'terminal', {
      command: 'head -c 150000 /dev/zero | tr "\\0" p; echo end',
      background: true,
      execution_target: 'a',
    });
    const id = bg.session_id as string;
    await tool(http, 'process', { action: 'wait', session_id: id, timeout: 20 });
    const first = await tool(http, 'process', { action: 'log', session_id: id, offset: 0, limit: 100_000 });
    expect(first).toMatchObject({ offset: 0, total_chars: 150_004, next_offset: 100_000, has_more: true });
    const rest = await tool(http, 'process', { action: 'log', session_id: id, offset: 100_000 });
    expect(rest).toMatchObject({ offset: 100_000, total_chars: 150_004, has_more: false });
    expect(`${first.output as string}${rest.output as string}`).toBe(`${'p'.repeat(150_000)}end\n`);
  });
});

describe('kept outputs live as long as the Core', () => {
  it('are private files in the profile while it runs, and gone once it stopped', async () => {
    const outputs = join(home, 'state', 'outputs');
    const files = readdirSync(outputs);
    expect(files.length).toBeGreaterThan(0);
    expect(statSync(outputs).mode & 0o777).toBe(0o700);
    for (const f of files) expect(statSync(join(outputs, f)).mode & 0o777).toBe(0o600);
    await stdio.close();
    await http.close();
    await served.stop();
    expect(existsSync(outputs)).toBe(false);
  });
});
