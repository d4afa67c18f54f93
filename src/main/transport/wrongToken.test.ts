// A token that is not this Core's is told apart from no token at all, over MCP HTTP and the WebSocket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHost, type Host } from './host.js';
import { connectCore } from './wsLink.js';

let home: string;
let host: Host;
const wrong = 'not-this-cores-token-0123456789abcdef';

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'sb-token-'));
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    a: { backend: local, cwd: ${home} }\n`);
  host = await startHost({ mode: 'serve', home });
});

afterAll(async () => {
  await host?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

/** The status and body a WebSocket upgrade is refused with. */
function upgradeRefusal(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(host.wsUrl, { headers });
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('error', () => undefined);
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
  });
}

describe('a wrong token', () => {
  const mcp = (authorization?: string) =>
    fetch(`${host.url}mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...(authorization ? { authorization } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  it('over MCP HTTP: 401 "token not valid for this Core"; none at all: "token required"', async () => {
    const bad = await mcp(`Bearer ${wrong}`);
    expect([bad.status, await bad.text()]).toEqual([401, 'token not valid for this Core\n']);
    const none = await mcp();
    expect([none.status, await none.text()]).toEqual([401, 'token required\n']);
  });

  it('the MCP SDK Client shows the reason', async () => {
    const client = new Client({ name: 'test-token', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${host.url}mcp`), {
      requestInit: { headers: { authorization: `Bearer ${wrong}` } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/token not valid for this Core/);
  });

  it('over the WebSocket: the upgrade is refused with the reason, and the CLI link says it', async () => {
    expect(await upgradeRefusal({ authorization: `Bearer ${wrong}` })).toEqual({
      status: 401,
      body: 'token not valid for this Core\n',
    });
    expect(await upgradeRefusal({})).toEqual({ status: 401, body: 'token required\n' });
    await expect(connectCore(host.wsUrl, wrong)).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(/^token not valid for this Core/),
    });
  });
});
