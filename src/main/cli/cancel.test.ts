// Cancelling a call stops its command on the target: Ctrl+C on `switchboard call`, MCP notifications/cancelled over
// stdio, a dropped /mcp HTTP request and a wire-level cancel. Each ends with the sleep gone and the audit saying so;
// a call cancelled while it waits for approval takes its approval out of the queue.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectCore } from '../transport/wsLink.js';
import { cliPath, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { sleepRunning, sleepSeconds, until } from '../../../scripts/sleepProbe.js';

const home = tempHome('sb-cancel-');
// Beside the profile, not in it: the profile is the Switchboard's, refused to agents and masked in the sandbox.
const outside = tempHome('sb-cancel-work-');
const work = join(outside, 'work');
let served: Served;
let info: { ws_url: string; mcp_url: string; token: string };

/** A sleep whose length is unique to one case, so pgrep finds only that case's command. */
const uniqueSleep = sleepSeconds(3000, '5');
const running = sleepRunning;

function auditOutcomes(seconds: string): string[] {
  const lines = readFileSync(join(home, 'audit.jsonl'), 'utf8').trim().split('\n');
  return lines
    .map((l) => JSON.parse(l) as { args?: string; outcome?: string })
    .filter((l) => l.args?.includes(`sleep ${seconds}`))
    .map((l) => l.outcome ?? '');
}

beforeAll(async () => {
  ensureBuilt();
  mkdirSync(work);
  mkdirSync(join(outside, 'user-home'));
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    a: { backend: local, cwd: ${work} }\n`);
  // The shells the Core starts get a HOME of their own.
  served = await startServe(home, { HOME: join(outside, 'user-home') });
  info = JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')) as typeof info;
});
afterAll(async () => {
  await served?.stop();
  rmSync(home, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('cancelling a call stops its command', () => {
  it('Ctrl+C on `switchboard call` kills the command, exits 130 and the audit says cancelled', async () => {
    const s = uniqueSleep();
    const child = spawn(
      process.execPath,
      [cliPath, 'call', 'terminal', JSON.stringify({ command: `sleep ${s}; echo never`, timeout: 600 })],
      {
        env: { ...process.env, SWITCHBOARD_HOME: home },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(() => running(s), 'the command started');
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^switchboard: the call was cancelled/)]);
    await until(() => !running(s), 'the command was killed');
    await until(() => auditOutcomes(s).includes('cancelled'), 'the audit says cancelled');
  });

  it('Ctrl+C on `switchboard call` while its approval is pending withdraws the approval; nothing runs', async () => {
    mkdirSync(join(work, 'ctrl-c'));
    writeFileSync(join(work, 'ctrl-c', 'keep'), 'x');
    const command = 'rm -rf ./ctrl-c';
    const child = spawn(process.execPath, [cliPath, 'call', 'terminal', JSON.stringify({ command })], {
      env: { ...process.env, SWITCHBOARD_HOME: home },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const { client, close } = await connectCore(info.ws_url, info.token);
    try {
      let id: string | undefined;
      await until(
        async () =>
          (id = (await client.call('approvals.list', {})).find((p) => p.command === command)?.id) !== undefined,
        'the call is held for approval',
      );
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      await until(
        async () => !(await client.call('approvals.list', {})).some((p) => p.id === id),
        'the approval was withdrawn',
        20,
      );
      expect(existsSync(join(work, 'ctrl-c', 'keep'))).toBe(true);
    } finally {
      close();
    }
  });

  it('MCP notifications/cancelled over stdio kills the command', async () => {
    const s = uniqueSleep();
    const client = new Client({ name: 'cancel-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp'],
        env: { ...(process.env as Record<string, string>), SWITCHBOARD_HOME: home },
        stderr: 'pipe',
      }),
    );
    try {
      const abort = new AbortController();
      const call = client
        .callTool({ name: 'terminal', arguments: { command: `sleep ${s}`, timeout: 600 } }, undefined, {
          signal: abort.signal,
        })
        .then(
          () => 'answered',
          () => 'rejected',
        );
      await until(() => running(s), 'the command started');
      abort.abort();
      expect(await call).toBe('rejected');
      await until(() => !running(s), 'the command was killed');
      await until(() => auditOutcomes(s).includes('cancelled'), 'the audit says cancelled');
      // The bridge still serves the next call.
      const next = await client.callTool({ name: 'terminal', arguments: { command: 'echo still-here' } });
      expect(JSON.stringify(next.content)).toContain('still-here');
    } finally {
      await client.close();
    }
  });

  it('MCP notifications/cancelled over stdio while the call is held withdraws its approval; nothing runs', async () => {
    mkdirSync(join(work, 'stdio-held'));
    writeFileSync(join(work, 'stdio-held', 'keep'), 'x');
    const command = 'rm -rf ./stdio-held';
    const client = new Client({ name: 'cancel-test', version: '1' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [cliPath, 'mcp'],
        env: { ...(process.env as Record<string, string>), SWITCHBOARD_HOME: home },
        stderr: 'pipe',
      }),
    );
    const core = await connectCore(info.ws_url, info.token);
    try {
      const abort = new AbortController();
      const call = client
        .callTool({ name: 'terminal', arguments: { command } }, undefined, { signal: abort.signal })
        .then(
          () => 'answered',
          () => 'rejected',
        );
      let id: string | undefined;
      await until(
        async () =>
          (id = (await core.client.call('approvals.list', {})).find((p) => p.command === command)?.id) !== undefined,
        'the call is held for approval',
      );
      abort.abort();
      expect(await call).toBe('rejected');
      await until(
        async () => !(await core.client.call('approvals.list', {})).some((p) => p.id === id),
        'the approval was withdrawn',
        20,
      );
      expect(existsSync(join(work, 'stdio-held', 'keep'))).toBe(true);
    } finally {
      core.close();
      await client.close();
    }
  });

  it('a dropped /mcp HTTP request kills the command', async () => {
    const s = uniqueSleep();
    const abort = new AbortController();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'terminal', arguments: { command: `sleep ${s}`, timeout: 600 } },
    });
    const request = fetch(info.mcp_url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${info.token}`,
      },
      body,
      signal: abort.signal,
    })
      .then(async (r) => r.text())
      .catch(() => 'dropped');
    await until(() => running(s), 'the command started');
    abort.abort();
    expect(await request).toBe('dropped');
    await until(() => !running(s), 'the command was killed');
    await until(() => auditOutcomes(s).includes('cancelled'), 'the audit says cancelled');
  });

  it(
    'a wire cancel answers the call `cancelled`, ' + 'and a connection that goes away cancels what it waited for',
    async () => {
      const s = uniqueSleep();
      const { client, close } = await connectCore(info.ws_url, info.token);
      const abort = new AbortController();
      const call = client
        .call(
          'tool.call',
          { tool: 'terminal', args: { command: `sleep ${s}`, timeout: 600 } },
          { signal: abort.signal },
        )
        .catch((e: unknown) => e);
      await until(() => running(s), 'the command started');
      abort.abort();
      expect(await call).toMatchObject({ code: 'cancelled' });
      await until(() => !running(s), 'the command was killed');

      const s2 = uniqueSleep();
      void client
        .call('tool.call', { tool: 'terminal', args: { command: `sleep ${s2}`, timeout: 600 } })
        .catch(() => undefined);
      await until(() => running(s2), 'the second command started');
      close();
      await until(() => !running(s2), 'the second command was killed with its connection');
      await until(() => auditOutcomes(s2).includes('cancelled'), 'the audit says cancelled');
    },
  );
});
