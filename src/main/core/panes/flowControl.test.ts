// Pane flow control over a real WebSocket and a real pty: a flood nobody acknowledges stops near the high mark (the
// Core stops reading the pty rather than holding output), and acknowledgements set it going again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { WsServer } from '../../transport/wsServer.js';
import { connectCore } from '../../transport/wsLink.js';
import type { CoreClient } from '../../../shared/client.js';
import { HIGH_WATERMARK, LOW_WATERMARK } from './panes.js';
import { BATCH_MAX_BYTES } from './paneBatch.js';
import { ACK_CHUNK, PaneAcks } from '../../../shared/paneFlow.js';

/** What a pty may still hand over after the pause (one read already under way, at most 64 KiB) plus one batch. */
const SLACK = BATCH_MAX_BYTES + 64 * 1024;

/** Wait until `count()` has not moved for a while (the pty is paused) and return it. */
async function settled(count: () => number): Promise<number> {
  let last = -1;
  let still = 0;
  while (still < 10) {
    await sleep(100);
    const now = count();
    still = now === last && now > 0 ? still + 1 : 0;
    last = now;
  }
  return last;
}

describe('pane flow control', () => {
  let t: TestCore;
  let server: WsServer;
  let ui: { client: CoreClient; close: () => void };

  beforeAll(async () => {
    t = await makeTestCore(['a']);
    server = new WsServer(t.core, { rendererDir: '/nonexistent' });
    ui = await connectCore((await server.listen()).wsUrl, server.token, undefined, server.personLinks.mint());
  });
  afterAll(async () => {
    ui?.close();
    await server?.close();
    await t?.close();
  });

  it('a flood stops near the high mark until it is acknowledged, then flows again', async () => {
    expect(LOW_WATERMARK).toBeLessThan(HIGH_WATERMARK);
    const pane = await ui.client.call('pane.open', { execution_target: 'a', cols: 120, rows: 40 });
    let received = 0;
    const off = ui.client.on('pane.data', ({ pane_id, data }) => {
      if (pane_id === pane.pane_id) received += data.length;
    });
    try {
      await ui.client.call('pane.write', { pane_id: pane.pane_id, data: "head -c 400000000 /dev/zero | tr '\\0' x\r" });
      // The shell starts first (its prompt); the flood then runs up to the mark and stops there.
      while (received <= HIGH_WATERMARK) await sleep(50);
      const first = await settled(() => received);
      expect(first).toBeGreaterThan(HIGH_WATERMARK);
      expect(first).toBeLessThan(HIGH_WATERMARK + SLACK);

      // Acknowledging all but a little over the low mark leaves it paused; the rest lets it run to the next stop.
      let acked = first - LOW_WATERMARK - 1000;
      await ui.client.call('pane.ack', { pane_id: pane.pane_id, chars: acked });
      expect(await settled(() => received)).toBe(first);
      await ui.client.call('pane.ack', { pane_id: pane.pane_id, chars: first - acked });
      acked = first;
      const second = await settled(() => received);
      expect(second).toBeGreaterThan(first + HIGH_WATERMARK - LOW_WATERMARK);
      expect(second - acked).toBeLessThan(HIGH_WATERMARK + SLACK);
    } finally {
      off();
      await ui.client.call('pane.close', { pane_id: pane.pane_id });
    }
  });

  it(
    'a paused flood runs to its end when acknowledged as a window does, ' +
      'in chunks of ACK_CHUNK and the rest when idle',
    async () => {
      // Chunks small enough that a paused pane is read again while the window still has output to write.
      expect(ACK_CHUNK).toBeLessThanOrEqual(LOW_WATERMARK / 2);
      const pane = await ui.client.call('pane.open', { execution_target: 'a', cols: 120, rows: 40 });
      let received = 0;
      let tail = '';
      let flowed = false;
      let acking: PaneAcks | undefined;
      const sent: number[] = [];
      const off = ui.client.on('pane.data', ({ pane_id, data }) => {
        if (pane_id !== pane.pane_id) return;
        if (typeof data !== 'string') throw new Error('a JSON client gets text');
        received += data.length;
        // Looked for as output comes: the prompt that follows the marker may push it out of any window kept.
        flowed ||= (tail + data).includes('FLOWED-42');
        tail = data.slice(-16);
        acking?.written(data.length);
      });
      try {
        const bytes = 6 * HIGH_WATERMARK;
        await ui.client.call('pane.write', {
          pane_id: pane.pane_id,
          data: `head -c ${bytes} /dev/zero | tr '\\0' x; echo FLOWED-$((40+2))\r`,
        });
        // Nobody acknowledges at first: the pane pauses near the high mark.
        while (received <= HIGH_WATERMARK) await sleep(50);
        const paused = await settled(() => received);
        expect(paused).toBeLessThan(HIGH_WATERMARK + SLACK);
        acking = new PaneAcks((chars) => {
          sent.push(chars);
          ui.client.ackPane(pane.pane_id, chars);
        });
        acking.written(paused);
        while (!flowed) await sleep(50);
        expect(received).toBeGreaterThan(bytes);
        // A round trip per chunk, not per batch; every ack but the idle ones is a whole chunk.
        expect(sent.length).toBeLessThan(received / ACK_CHUNK + 20);
      } finally {
        off();
        acking?.reset();
        await ui.client.call('pane.close', { pane_id: pane.pane_id });
      }
    },
  );
});
