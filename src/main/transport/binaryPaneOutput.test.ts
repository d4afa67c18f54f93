// Pane output as binary frames over a real WebSocket from a real pty: a window that asks for them gets UTF-8 bytes in
// frames of whole characters, a JSON client on the same pane still gets pane.data strings, and both see the same text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTestCore, type TestCore } from '../core/tools/testCore.js';
import { WsServer } from './wsServer.js';
import { connectCore } from './wsLink.js';
import type { CoreClient } from '../../shared/client.js';

/**
 * About 1.4 MB of mixed one- to four-byte UTF-8: several frames even at the largest batch (256 KiB), so characters
 * meet batch edges (a third of it came in three frames on a fast run).
 */
const LINES = 60_000;
const COMMAND = `echo BEGIN-$((1+1)); yes 'é€😀 αβγ line' | head -n ${LINES}; echo END-$((2+1))\r`;

function between(text: string): string | undefined {
  const a = text.indexOf('BEGIN-2');
  const b = text.indexOf('END-3', a);
  return a >= 0 && b > a ? text.slice(a, b) : undefined;
}

describe('pane output as binary frames', () => {
  let t: TestCore;
  let server: WsServer;
  let bin: { client: CoreClient; close: () => void };
  let json: { client: CoreClient; close: () => void };

  beforeAll(async () => {
    t = await makeTestCore(['a']);
    server = new WsServer(t.core, { rendererDir: '/nonexistent' });
    const { wsUrl } = await server.listen();
    // Both as a person's windows: panes are a person's.
    const person = server.personLinks.mint();
    bin = await connectCore(wsUrl, server.token, undefined, person);
    json = await connectCore(wsUrl, server.token, undefined, person);
  });
  afterAll(async () => {
    bin?.close();
    json?.close();
    await server?.close();
    await t?.close();
  });

  it('a binary window and a JSON client on one pane get the same output, acknowledged in chars', async () => {
    const pane = await bin.client.call('pane.open', { execution_target: 'a', cols: 120, rows: 40, binary: true });
    await json.client.call('pane.attach', { pane_id: pane.pane_id });
    const strict = new TextDecoder('utf-8', { fatal: true });
    let binText = '';
    let jsonText = '';
    const kinds = { bin: new Set<string>(), json: new Set<string>() };
    let frames = 0;
    const offBin = bin.client.on('pane.data', ({ pane_id, data, chars }) => {
      if (pane_id !== pane.pane_id) return;
      kinds.bin.add(typeof data);
      if (typeof data === 'string') return;
      // Every frame holds whole characters (a fatal decoder throws on a split one) and says how many chars it is.
      const text = strict.decode(data);
      expect(chars).toBe(text.length);
      binText += text;
      frames++;
      void bin.client.call('pane.ack', { pane_id, chars: text.length });
    });
    const offJson = json.client.on('pane.data', ({ pane_id, data }) => {
      if (pane_id !== pane.pane_id) return;
      kinds.json.add(typeof data);
      if (typeof data === 'string') jsonText += data;
    });
    try {
      await bin.client.call('pane.write', { pane_id: pane.pane_id, data: COMMAND });
      while (between(binText) === undefined || between(jsonText) === undefined) await sleep(50);
      expect([...kinds.bin]).toEqual(['object']);
      expect([...kinds.json]).toEqual(['string']);
      expect(frames).toBeGreaterThan(3);
      const seen = between(binText)!;
      expect(seen).toBe(between(jsonText));
      expect(seen.split('é€😀 αβγ line\r\n').length - 1).toBe(LINES);
    } finally {
      offBin();
      offJson();
      await bin.client.call('pane.close', { pane_id: pane.pane_id });
    }
  });

  it('a resumed pane replays its output in the reply and sends what follows as frames', async () => {
    const pane = await json.client.call('pane.open', { execution_target: 'a', cols: 80, rows: 24, keep: true });
    let before = '';
    const offBefore = json.client.on('pane.data', ({ pane_id, data }) => {
      if (pane_id === pane.pane_id && typeof data === 'string') before += data;
    });
    await json.client.call('pane.write', { pane_id: pane.pane_id, data: 'echo before-$((4+4))\r' });
    while (!before.includes('before-8')) await sleep(20);
    offBefore();
    const resumed = await bin.client.call('pane.resume', { pane_id: pane.pane_id, binary: true });
    expect(resumed.scrollback).toContain('before-8');
    let after = '';
    const off = bin.client.on('pane.data', ({ pane_id, data }) => {
      if (pane_id === pane.pane_id && typeof data !== 'string') after += new TextDecoder().decode(data);
    });
    try {
      await bin.client.call('pane.write', { pane_id: pane.pane_id, data: 'echo after-$((5+5))\r' });
      while (!after.includes('after-10')) await sleep(20);
    } finally {
      off();
      await bin.client.call('pane.close', { pane_id: pane.pane_id });
    }
  });
});
