// `switchboard mcp` answers initialize without waiting for the Core's connection, and a Core it cannot reach is
// reported by the first tool call (a tool error naming no_core), as after a lost connection.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, ensureBuilt, tempHome } from '../../../scripts/cliHarness.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0).reverse()) c();
});

/** A TCP server that accepts connections and never answers them (a Core not reachable yet), until it drops them all. */
async function silentServer(): Promise<{ port: number; dropAll: () => void }> {
  const sockets: Socket[] = [];
  let dropping = false;
  const server: Server = createServer((s) => (dropping ? s.destroy() : sockets.push(s)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(() => server.close());
  const dropAll = (): void => {
    dropping = true;
    for (const s of sockets.splice(0)) s.destroy();
  };
  return { port: (server.address() as { port: number }).port, dropAll };
}

/** JSON-RPC over the bridge's stdio: send a message, read the answer to an id. */
function rpc(child: ChildProcessWithoutNullStreams): {
  send: (m: object) => void;
  answer: (id: number) => Promise<Record<string, unknown>>;
} {
  let buffered = '';
  const answers = new Map<number, Record<string, unknown>>();
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>;
      buffered = buffered.slice(nl + 1);
      if (typeof msg.id !== 'number') continue;
      answers.set(msg.id, msg);
      waiting.get(msg.id)?.(msg);
    }
  });
  return {
    send: (m) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n'),
    answer: (id) => new Promise((resolve) => (answers.has(id) ? resolve(answers.get(id)!) : waiting.set(id, resolve))),
  };
}

describe('switchboard mcp before the Core answers', () => {
  it('answers initialize while the Core connection is pending; the first tool call reports the Core it cannot ' +
    'reach', async () => {
    ensureBuilt();
    const home = tempHome('sb-mcp-early-');
    cleanup.push(() => rmSync(home, { recursive: true, force: true }));
    const core = await silentServer();
    // A core.json of a live process (this one) whose WebSocket endpoint accepts but never completes the handshake.
    writeFileSync(
      join(home, 'core.json'),
      JSON.stringify({
        url: `http://127.0.0.1:${core.port}/`,
        ws_url: `ws://127.0.0.1:${core.port}/ws`,
        mcp_url: `http://127.0.0.1:${core.port}/mcp`,
        token: 'not-a-real-token',
        pid: process.pid,
        started_at: new Date().toISOString(),
        mode: 'serve',
      }),
      { mode: 0o600 },
    );
    const child = spawn(process.execPath, [cliPath, 'mcp'], {
      env: { ...process.env, SWITCHBOARD_HOME: home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    cleanup.push(() => child.kill());
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const { send, answer } = rpc(child);

    send({
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    });
    expect(await answer(1)).toMatchObject({
      id: 1,
      result: { serverInfo: { name: 'switchboard' }, capabilities: { tools: {} } },
    });
    send({ method: 'notifications/initialized' });
    // The tool list needs no Core.
    send({ id: 2, method: 'tools/list', params: {} });
    const listed = (await answer(2)).result as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toContain('terminal');

    // The Core's end drops the connection (and any new one): the call is answered with a tool error, no crash.
    send({ id: 3, method: 'tools/call', params: { name: 'terminal', arguments: { command: 'true' } } });
    core.dropAll();
    const called = (await answer(3)).result as { isError?: boolean; content: Array<{ text: string }> };
    expect(called.isError).toBe(true);
    expect(called.content[0]!.text).toMatch(/^no_core: cannot reach the Core at ws:\/\/127\.0\.0\.1:\d+\/ws/);
    expect(child.exitCode).toBeNull();
    expect(stderr).toBe('');
  }, 30_000);
});
