// Connections over a real WebSocket: each gets only what it subscribed to and the output of its own panes, and a
// client that stops reading cannot make the Core queue without bound (pane ptys are throttled, tails dropped, the rest
// capped).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Socket } from 'node:net';
import { makeTestCore, type TestCore } from '../core/tools/testCore.js';
import { WsServer } from './wsServer.js';
import { connectCore } from './wsLink.js';
import { Connection, DEFAULT_LIMITS, SLOW_CLIENT_REASON, type Peer } from './connection.js';
import type { CoreClient } from '../../shared/client.js';
import type { CoreEvent } from '../../shared/api.js';
import { decodePaneFrame } from '../../shared/paneFrame.js';
import { paneFrameOf, PaneBatch } from '../core/panes/index.js';
import { personCookieHeader } from './personCookie.js';

const FLOOD = "head -c 400000000 /dev/zero | tr '\\0' x; echo FLOOD-END\r";

/**
 * A raw client that counts every message it is sent; `slow()` stops reading from the socket (the kernel then fills up).
 */
async function rawClient(wsUrl: string, token: string, person?: string) {
  // `person`: the secret of a person's cookie — a window's connection (panes and subscriptions are a person's).
  const ws = new WebSocket(wsUrl, {
    headers: { authorization: `Bearer ${token}`, ...(person ? { cookie: personCookieHeader(wsUrl, person) } : {}) },
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const seen = { results: 0, events: new Map<string, number>() };
  const replies = new Map<number, (msg: { ok: boolean; result?: unknown; error?: unknown }) => void>();
  ws.on('message', (raw) => {
    const msg = JSON.parse(raw.toString()) as {
      type: string;
      id?: number;
      event?: string;
      ok: boolean;
      result?: unknown;
    };
    if (msg.type === 'result') {
      seen.results++;
      replies.get(msg.id!)?.(msg);
    } else seen.events.set(msg.event!, (seen.events.get(msg.event!) ?? 0) + 1);
  });
  let id = 0;
  const send = (method: string, params: unknown): number => {
    ws.send(JSON.stringify({ type: 'call', id: ++id, method, params }));
    return id;
  };
  const call = (method: string, params: unknown) =>
    new Promise<{ ok: boolean; result?: unknown; error?: unknown }>((resolve) => {
      replies.set(send(method, params), resolve);
    });
  const socket = (ws as unknown as { _socket: Socket })._socket;
  return { ws, seen, send, call, slow: () => socket.pause(), close: () => ws.terminate() };
}

describe('connections receive only what they asked for', () => {
  let t: TestCore;
  let server: WsServer;
  let wsUrl: string;
  let ui: { client: CoreClient; close: () => void };

  beforeAll(async () => {
    t = await makeTestCore(['a']);
    server = new WsServer(t.core, { rendererDir: '/nonexistent' });
    wsUrl = (await server.listen()).wsUrl;
    ui = await connectCore(wsUrl, server.token, undefined, server.personLinks.mint());
  });
  afterAll(async () => {
    ui?.close();
    await server?.close();
    await t?.close();
  });

  it("a call-style connection gets its replies and nothing else while another connection's pane floods", async () => {
    // The window's side: subscribes to what it draws and opens a pane that floods.
    const uiEvents = new Map<string, number>();
    const count = (e: CoreEvent) => ui.client.on(e, () => uiEvents.set(e, (uiEvents.get(e) ?? 0) + 1));
    const offs = [count('activity'), count('pane.data')];
    const pane = await ui.client.call('pane.open', { execution_target: 'a', cols: 80, rows: 24 });
    let acked = 0;
    const offAck = ui.client.on('pane.data', ({ data }) => {
      acked += data.length;
      void ui.client.call('pane.ack', { pane_id: pane.pane_id, chars: data.length });
    });
    // A `switchboard call`/`mcp`-style connection: never subscribes.
    const cli = await rawClient(wsUrl, server.token);
    await ui.client.call('pane.write', { pane_id: pane.pane_id, data: FLOOD });
    while (acked < 2_000_000) await sleep(20);
    const r = await cli.call('tool.call', { tool: 'terminal', args: { command: 'echo hi' }, client: 'cli' });
    expect(r).toMatchObject({ ok: true, result: { output: 'hi\n' } });
    while (acked < 4_000_000) await sleep(20);

    expect(cli.seen.results).toBe(1);
    expect([...cli.seen.events]).toEqual([]);
    // The other side did get the pane's bytes and the Activity entries of that call.
    expect(uiEvents.get('pane.data')).toBeGreaterThan(0);
    expect(uiEvents.get('activity')).toBeGreaterThanOrEqual(2);
    cli.close();
    offAck();
    for (const off of offs) off();
    await ui.client.call('pane.close', { pane_id: pane.pane_id });
  });

  it('answers every request: malformed ones, string ids, no JSON at all, and nesting past the limit', async () => {
    const c = await rawClient(wsUrl, server.token, server.personLinks.mint());
    const replies: Array<{ id: unknown; ok: boolean; error?: { code: string; message: string } }> = [];
    c.ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as {
        type: string;
        id: unknown;
        ok: boolean;
        error?: { code: string; message: string };
      };
      if (msg.type === 'result') replies.push(msg);
    });
    c.ws.send(JSON.stringify({ type: 'call', id: 'abc', method: 'targets.list', params: {} }));
    c.ws.send(JSON.stringify({ type: 'call', id: 7 }));
    c.ws.send('not json {');
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    c.ws.send(
      `{"type":"call","id":8,"method":"tool.call","params":{"tool":"terminal","args":{"command":"true","x":${deep}}}}`,
    );
    await expect.poll(() => replies.length).toBe(4);
    const reply = (id: unknown) => replies.find((r) => r.id === id);
    expect(reply('abc')).toMatchObject({ ok: true });
    expect(reply(7)).toMatchObject({
      ok: false,
      error: { code: 'bad_request', message: expect.stringContaining('malformed request') },
    });
    expect(reply(null)).toMatchObject({ ok: false, error: { code: 'bad_request' } });
    expect(reply(8)).toMatchObject({
      ok: false,
      error: { code: 'bad_request', message: 'the request nests more than 64 levels deep' },
    });
    // And the Core is still there for the next caller.
    expect(await c.call('targets.list', {})).toMatchObject({ ok: true });
    c.close();
  });

  it('a subscription is per event: subscribed to processes.changed only, a connection sees no activity', async () => {
    const c = await rawClient(wsUrl, server.token, server.personLinks.mint());
    expect(await c.call('events.subscribe', { events: ['processes.changed'] })).toMatchObject({ ok: true });
    await t.core.callTool('terminal', { command: 'sleep 0.2', background: true }, 'test');
    while (!c.seen.events.get('processes.changed')) await sleep(20);
    await t.core.callTool('terminal', { command: 'true' }, 'test');
    await c.call('events.unsubscribe', { events: ['processes.changed'] });
    expect([...c.seen.events.keys()]).toEqual(['processes.changed']);
    c.close();
  });

  it('pane events go to the connections that opened or attached the pane, and to no other', async () => {
    const opener = await rawClient(wsUrl, server.token, server.personLinks.mint());
    const attacher = await rawClient(wsUrl, server.token, server.personLinks.mint());
    const bystander = await rawClient(wsUrl, server.token, server.personLinks.mint());
    const opened = await opener.call('pane.open', { execution_target: 'a', cols: 80, rows: 24 });
    const paneId = (opened.result as { pane_id: string }).pane_id;
    expect(await attacher.call('pane.attach', { pane_id: paneId })).toMatchObject({ ok: true });
    opener.send('pane.write', { pane_id: paneId, data: 'echo attached-marker\r' });
    while (!attacher.seen.events.get('pane.data') || !opener.seen.events.get('pane.data')) await sleep(20);
    expect(bystander.seen.events.size).toBe(0);
    // The attacher leaving does not close the opener's pane; the opener leaving does.
    attacher.close();
    await sleep(50);
    expect(t.core.panes.has(paneId)).toBe(true);
    opener.close();
    while (t.core.panes.has(paneId)) await sleep(20);
    bystander.close();
  });
});

describe('a client that stops reading', () => {
  const limits = { highBytes: 512 * 1024, lowBytes: 128 * 1024, hardCapBytes: 8 * 1024 * 1024, pollMs: 20 };
  let t: TestCore;
  let server: WsServer;
  let wsUrl: string;

  beforeAll(async () => {
    t = await makeTestCore(['a']);
    server = new WsServer(t.core, { rendererDir: '/nonexistent', limits });
    wsUrl = (await server.listen()).wsUrl;
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('pane output: the pty is throttled, so what the Core queues for it stays near the high mark', async () => {
    const slow = await rawClient(wsUrl, server.token, server.personLinks.mint());
    const opened = await slow.call('pane.open', { execution_target: 'a', cols: 80, rows: 24 });
    const paneId = (opened.result as { pane_id: string }).pane_id;
    slow.slow();
    slow.send('pane.write', { pane_id: paneId, data: FLOOD });
    // It keeps acknowledging (so the renderer flow control never pauses the pane) but never reads.
    // The kernel's socket buffers fill first (a few MB); sample until the throttle took hold, then a while longer.
    let maxQueued = 0;
    let throttledSeen = 0;
    for (let i = 0; i < 3000 && throttledSeen < 100; i++) {
      slow.send('pane.ack', { pane_id: paneId, chars: 50_000_000 });
      const mine = server.connectionStats().find((s) => s.panes.includes(paneId));
      expect(mine, 'the slow connection is still open').toBeDefined();
      maxQueued = Math.max(maxQueued, mine!.buffered);
      if (mine!.throttled.includes(paneId)) throttledSeen++;
      if (maxQueued > limits.hardCapBytes) break;
      await sleep(20);
    }
    // Without the throttle the flood (400 MB) would pile up here; with it the queue stays within a batch of the high
    // mark.
    expect(maxQueued).toBeLessThan(limits.highBytes + 2 * 1024 * 1024);
    expect(throttledSeen).toBe(100);
    slow.close();
    while (t.core.panes.has(paneId)) await sleep(20);
  }, 120_000);

  it('background output: process.output is dropped for it, ' +
    'so its queue stays bounded during a large flood', async () => {
    const slow = await rawClient(wsUrl, server.token, server.personLinks.mint());
    expect(await slow.call('events.subscribe', { events: ['process.output', 'processes.changed'] })).toMatchObject({
      ok: true,
    });
    slow.slow();
    const started = await t.core.callTool(
      'terminal',
      { command: "head -c 100000000 /dev/zero | tr '\\0' y", background: true },
      'test',
    );
    const id = String(started.session_id);
    let maxQueued = 0;
    for (;;) {
      const stats = server.connectionStats().find((s) => s.subscribed.includes('process.output'));
      expect(stats, 'the slow connection is still open').toBeDefined();
      maxQueued = Math.max(maxQueued, stats!.buffered);
      const [info] = t.core.processes.list().filter((p) => p.session_id === id);
      if (info!.status !== 'running') break;
      await sleep(20);
    }
    expect(t.core.processes.list().find((p) => p.session_id === id)!.output_chars).toBe(100_000_000);
    // Each event is at most 256 KiB of output, so the queue passes the high mark by one event at most.
    expect(maxQueued).toBeLessThan(limits.highBytes + 1024 * 1024);
    slow.close();
  }, 120_000);
});

describe('the hard cap', () => {
  it('closes a connection whose queue passes it, with a reason, and stops sending to it', async () => {
    let queued = 0;
    const sent: unknown[] = [];
    let closedWith: string | undefined;
    const peer: Peer = {
      send: (m) => {
        sent.push(m);
        queued += JSON.stringify(m).length;
      },
      buffered: () => queued,
      isOpen: () => closedWith === undefined,
      close: (reason) => void (closedWith = reason),
    };
    let emit: (event: CoreEvent, payload: unknown) => void = () => undefined;
    const conn = new Connection(
      {
        invoke: async () => ({}),
        onEvent: (l) => ((emit = l), () => undefined),
        panes: { throttle: () => () => undefined, leave: () => undefined, has: () => false, ack: () => undefined },
      },
      peer,
      { ...DEFAULT_LIMITS, hardCapBytes: 100_000 },
    );
    conn.subscribe(['approvals.changed']);
    const big = Array.from({ length: 200 }, (_, i) => ({ id: `a${i}`, kind: 'command', title: 'x'.repeat(40) }));
    for (let i = 0; i < 100; i++) emit('approvals.changed', big);
    expect(closedWith).toBe(SLOW_CLIENT_REASON);
    expect(queued).toBeLessThan(
      100_000 + JSON.stringify({ type: 'event', event: 'approvals.changed', payload: big }).length + 1,
    );
    const before = sent.length;
    emit('approvals.changed', big);
    expect(sent.length).toBe(before);
  });
});

describe('pane output to a binary window', () => {
  it(
    'sends a batch the Core read into its frame as that frame, and frames other output by a copy; ' +
      'a JSON client gets text',
    () => {
      const frames: Uint8Array[] = [];
      const events: unknown[] = [];
      const peer = (binary: boolean): Peer => ({
        send: (m) => void events.push(m),
        ...(binary ? { sendBinary: (f: Uint8Array) => void frames.push(f) } : {}),
        buffered: () => 0,
        isOpen: () => true,
        close: () => undefined,
      });
      const emits: Array<(event: CoreEvent, payload: unknown) => void> = [];
      const core = {
        invoke: async () => ({}),
        onEvent: (l: (event: CoreEvent, payload: unknown) => void) => (emits.push(l), () => undefined),
        panes: { throttle: () => () => undefined, leave: () => undefined, has: () => false, ack: () => undefined },
      };
      const paneId = 'p-1';
      new Connection(core, peer(true)).addPane(paneId, true, true);
      new Connection(core, peer(false)).addPane(paneId, true, true);
      const emit = (payload: unknown): void => emits.forEach((l) => l('pane.data', payload));

      const pending = new PaneBatch(paneId);
      pending.add(Buffer.from('abc'));
      pending.add(Buffer.from('dé'));
      const { batch, chars } = pending.take()!;
      const frame = paneFrameOf(batch);
      emit({ pane_id: paneId, data: batch, chars });
      emit({ pane_id: paneId, data: Buffer.from('dé'), chars: 2 });
      expect(frames[0]).toBe(frame);
      expect(frames[1]).not.toBe(frame);
      expect(decodePaneFrame(frames[1]!)).toMatchObject({ pane_id: paneId, chars: 2 });
      expect(events).toEqual([
        { type: 'event', event: 'pane.data', payload: { pane_id: paneId, data: 'abcdé', chars: 5 } },
        { type: 'event', event: 'pane.data', payload: { pane_id: paneId, data: 'dé', chars: 2 } },
      ]);
    },
  );
});

describe('acknowledgements without a reply', () => {
  it(
    'an ack message acknowledges a pane this connection reads and is not answered; ' +
      "one for another connection's pane, a malformed one or one for a gone pane is dropped",
    async () => {
      const sent: unknown[] = [];
      const acked: Array<[string, number]> = [];
      const conn = new Connection(
        {
          invoke: async () => ({}),
          onEvent: () => () => undefined,
          panes: {
            throttle: () => () => undefined,
            leave: () => undefined,
            has: (id) => id === 'p-1',
            ack: (id, chars) => void acked.push([id, chars]),
          },
        },
        { send: (m) => void sent.push(m), buffered: () => 0, isOpen: () => true, close: () => undefined },
      );
      await conn.receive({ type: 'ack', pane_id: 'p-1', chars: 125_000 });
      conn.addPane('p-1', false);
      conn.addPane('p-2', false);
      await conn.receive({ type: 'ack', pane_id: 'p-1', chars: 125_000 });
      await conn.receive({ type: 'ack', pane_id: 'p-2', chars: 10 });
      await conn.receive({ type: 'ack', pane_id: 'p-1', chars: -5 });
      await conn.receive({ type: 'ack', pane_id: 'p-1' });
      expect(acked).toEqual([['p-1', 125_000]]);
      expect(sent).toEqual([]);
    },
  );
});
