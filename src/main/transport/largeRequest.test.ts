// A request over MAX_REQUEST_BYTES on a real WebSocket: refused unparsed, with one error line naming its id (read from
// the frame's start), and the connection serves on; leadingId by table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_REQUEST_BYTES } from '../../shared/limits.js';
import { makeTestCore, type TestCore } from '../core/tools/testCore.js';
import { leadingId } from './connection.js';
import { WsServer } from './wsServer.js';

describe('leadingId', () => {
  it.each([
    ['{"type":"call","id":7,"method":"tool.call","params":{"args":{"command":"xxx', 7],
    ['{ "id" : "abc-1" , "type":"call"', 'abc-1'],
    ['{"type":"call","method":"m","id":-3,"params":', -3],
    // Only the outer object's id, before anything nested: an id inside params is not it.
    ['{"type":"call","params":{"id":5},"id":9', null],
    ['{"type":"call","method":"a{b","id":9', null],
    // Inside a string the quotes are escaped: not a member.
    ['{"type":"call","method":"x,\\"id\\":4","params":', null],
    ['{"type":"call","id":1.5,', null],
    ['{"type":"call","id":"' + 'x'.repeat(200) + '"', null],
    ['not json', null],
  ])('%j → %j', (head, id) => expect(leadingId(head)).toBe(id));
});

describe('a request over the cap on the WebSocket', () => {
  let t: TestCore | undefined;
  let server: WsServer | undefined;
  let wsUrl = '';
  beforeAll(async () => {
    t = await makeTestCore(['a']);
    server = new WsServer(t.core, { rendererDir: '/nonexistent' });
    wsUrl = (await server.listen()).wsUrl;
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('is answered too_large on one line, with its id, and the connection goes on', async () => {
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${server!.token}` } });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const replies: Array<{ id: unknown; ok: boolean; error?: { code: string; message: string } }> = [];
    ws.on('message', (raw) => replies.push(JSON.parse(raw.toString())));
    const until = async (n: number): Promise<void> => {
      while (replies.length < n) await new Promise((r) => setTimeout(r, 20));
    };
    const command = `echo ${'x'.repeat(MAX_REQUEST_BYTES)}`;
    ws.send(
      JSON.stringify({
        type: 'call',
        id: 41,
        method: 'tool.call',
        params: { tool: 'terminal', args: { command }, client: 'test' },
      }),
    );
    await until(1);
    expect(replies[0]).toMatchObject({
      id: 41,
      ok: false,
      error: { code: 'too_large', message: 'the request is 10.0 MiB; the limit is 10.0 MiB' },
    });
    expect(replies[0]!.error!.message).not.toMatch(/\n/);
    // Nothing of it ran or was recorded as a call.
    expect(t!.core.activity.list()).toEqual([]);
    ws.send(
      JSON.stringify({
        type: 'call',
        id: 42,
        method: 'tool.call',
        params: { tool: 'terminal', args: { command: 'echo still' }, client: 'test' },
      }),
    );
    await until(2);
    expect(replies[1]).toMatchObject({ id: 42, ok: true, result: { output: 'still\n' } });
    ws.close();
  });
});
