// A call its /mcp client gave up on withdraws its pending approval and stops its command: notifications/cancelled in a
// POST of its own (sent by hand, or by the SDK's client when its request times out), a dropped connection. Nothing runs
// after its caller gave up, even when a person approves just then.
import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { PendingApproval } from '../../../shared/approvals.js';
import { hostForFile } from '../../../../scripts/hostHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../../scripts/sleepProbe.js';
import { asPerson } from '../platform/index.js';

const served = hostForFile('sb-mcp-cancel-', 'approvals:\n  mode: ask\n  timeout: 600\n');
const { work } = served;
const uniqueSleep = sleepSeconds(3400, '7');

const headers = (): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  authorization: `Bearer ${served.host.server.token}`,
});
const post = (message: unknown, signal?: AbortSignal): Promise<Response> =>
  fetch(`${served.host.url}mcp`, {
    method: 'POST',
    headers: headers(),
    body: JSON.stringify(message),
    ...(signal ? { signal } : {}),
  });
const callMessage = (id: number, command: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'terminal', arguments: { command, timeout: 600 } },
});
const cancelMessage = (id: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId: id, reason: 'the client gave up' },
});

/** A canary directory the held command would delete. */
function canary(name: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'keep'), 'x');
  return dir;
}

async function held(command: string): Promise<PendingApproval> {
  let found: PendingApproval | undefined;
  await until(
    () => (found = served.host.core.approvals.list().find((p) => p.command === command)) !== undefined,
    `"${command}" is held for approval`,
  );
  return found!;
}

/** A person's approval of a request that is gone finds nothing to approve. */
function approveLate(p: PendingApproval): unknown {
  try {
    return served.host.core.approvals.decide({ id: p.id, decision: 'approve', scope: 'once' }, 'ui');
  } catch (err) {
    return err;
  }
}

describe('/mcp calls whose client gave up', () => {
  it(
    'notifications/cancelled in a POST of its own withdraws the pending approval at once; ' +
      'a late approve runs nothing',
    async () => {
      const dir = canary('cancelled');
      const command = 'rm -rf ./cancelled';
      const asked = post(callMessage(11, command));
      const p = await held(command);
      const changes: number[] = [];
      const off = served.host.core.approvals.onChange((list) => changes.push(list.length));
      const cancel = await post(cancelMessage(11));
      expect(cancel.status).toBe(202);
      await until(
        () => !served.host.core.approvals.list().some((x) => x.id === p.id),
        'the approval left the queue',
        20,
      );
      off();
      expect(changes.length).toBeGreaterThan(0);
      expect(approveLate(p)).toMatchObject({ code: 'bad_request', message: `no pending approval ${p.id}` });
      // The POST that asked is answered with nothing: its request was cancelled.
      const answer = await asked;
      expect([answer.status, await answer.text()]).toEqual([202, '']);
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(join(dir, 'keep'))).toBe(true);
      expect(served.host.core.activity.list(5).find((e) => e.summary.includes(command))).toMatchObject({
        status: 'cancelled',
        approval: { by: 'withdrawn' },
      });
    },
  );

  it(
    'an MCP client whose request timed out withdraws the pending approval (the SDK sends the cancel in a POST ' +
      'of its own)',
    async () => {
      const dir = canary('timed-out');
      const command = 'rm -rf ./timed-out';
      const client = new Client({ name: 'cancel-test', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${served.host.url}mcp`), {
          requestInit: { headers: { authorization: `Bearer ${served.host.server.token}` } },
        }),
      );
      try {
        const call = client.callTool({ name: 'terminal', arguments: { command } }, undefined, { timeout: 1000 }).then(
          () => 'answered',
          (err: unknown) => err,
        );
        const p = await held(command);
        expect(await call).toMatchObject({ code: ErrorCode.RequestTimeout });
        await until(
          () => !served.host.core.approvals.list().some((x) => x.id === p.id),
          'the approval left the queue',
          20,
        );
        expect(approveLate(p)).toMatchObject({ code: 'bad_request' });
        expect(existsSync(join(dir, 'keep'))).toBe(true);
        // The client goes on: its next call is answered.
        const next = (await client.callTool({ name: 'terminal', arguments: { command: 'echo after' } })) as {
          content: Array<{ text: string }>;
        };
        expect(next.content[0]?.text).toContain('after');
      } finally {
        await client.close();
      }
    },
  );

  it(
    'a client that drops its connection withdraws the pending ' + 'approval at once; a late approve runs nothing',
    async () => {
      const dir = canary('dropped');
      const command = 'rm -rf ./dropped';
      const body = JSON.stringify(callMessage(12, command));
      const req = request(`${served.host.url}mcp`, {
        method: 'POST',
        headers: { ...headers(), 'content-length': Buffer.byteLength(body) },
      });
      req.on('error', () => undefined);
      req.end(body);
      const p = await held(command);
      req.destroy();
      await until(
        () => !served.host.core.approvals.list().some((x) => x.id === p.id),
        'the approval left the queue',
        20,
      );
      expect(approveLate(p)).toMatchObject({ code: 'bad_request' });
      await new Promise((r) => setTimeout(r, 300));
      expect(existsSync(join(dir, 'keep'))).toBe(true);
    },
  );

  it('notifications/cancelled in a POST of its own stops a running command; the next call is served', async () => {
    const s = uniqueSleep();
    const asked = post(callMessage(13, `sleep ${s}`));
    await until(() => sleepRunning(s), 'the command started');
    expect((await post(cancelMessage(13))).status).toBe(202);
    await until(() => !sleepRunning(s), 'the command was killed', 50);
    expect((await asked).status).toBe(202);
    const next = (await (await post(callMessage(14, 'echo still-here'))).json()) as {
      id: number;
      result: { content: Array<{ text: string }> };
    };
    expect(next).toMatchObject({ id: 14 });
    expect(next.result.content[0]?.text).toContain('still-here');
  });

  it('a cancel in the same POST as its request: nothing runs, the POST is answered with nothing', async () => {
    const s = uniqueSleep();
    const both = await post([callMessage(17, `sleep ${s}`), cancelMessage(17)]);
    expect([both.status, await both.text()]).toEqual([202, '']);
    await new Promise((r) => setTimeout(r, 300));
    expect(sleepRunning(s)).toBe(false);
  });

  it('a cancel for another request id stops nothing', async () => {
    const s = uniqueSleep();
    const asked = post(callMessage(15, `sleep ${s}`));
    await until(() => sleepRunning(s), 'the command started');
    await post(cancelMessage(16));
    await new Promise((r) => setTimeout(r, 300));
    expect(sleepRunning(s)).toBe(true);
    await post(cancelMessage(15));
    await asked;
    await until(() => !sleepRunning(s), 'the command was killed', 50);
  });

  it('an approval that lands as the call is withdrawn runs nothing', async () => {
    const dir = canary('raced');
    const command = 'rm -rf ./raced';
    const caller = new AbortController();
    const call = served.host.core.callTool('terminal', { command }, 'mcp', caller.signal).catch((err: unknown) => err);
    const p = await held(command);
    // Both in one turn: the person's click reaches the Core first, the caller's cancel right after.
    served.host.core.approvals.decide({ id: p.id, decision: 'approve', scope: 'always' }, 'ui');
    caller.abort();
    expect(await call).toMatchObject({ code: 'cancelled' });
    expect(existsSync(join(dir, 'keep'))).toBe(true);
    expect(served.host.core.activity.list(5).find((e) => e.summary.includes(command))).toMatchObject({
      status: 'cancelled',
      approval: { by: 'withdrawn' },
    });
    // Nor is the rule kept: the answer decided nothing.
    expect(await served.host.core.invoke('approvals.rules', {}, asPerson)).toEqual([]);
  });
});
