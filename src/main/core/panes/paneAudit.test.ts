// A pane opened and closed through the API leaves two audit lines — who opened it, on which target and generation,
// the pane id — and nothing of what was typed in it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { WsServer } from '../../transport/wsServer.js';
import { connectCore } from '../../transport/wsLink.js';
import type { CoreClient } from '../../../shared/client.js';
import { headPath, parseHead, verifyChain } from '../activity/index.js';

describe('pane audit', () => {
  let t: TestCore;
  let server: WsServer;
  let ui: { client: CoreClient; close: () => void };
  // The pane's shell reads its rc files from HOME: a HOME of its own, not the machine's.
  const home = mkdtempSync(join(tmpdir(), 'sb-pane-home-'));
  const savedHome = process.env.HOME;

  beforeAll(async () => {
    process.env.HOME = home;
    t = await makeTestCore(['a']);
    server = new WsServer(t.core, { rendererDir: '/nonexistent' });
    const listening = await server.listen();
    ui = await connectCore(listening.wsUrl, server.token, undefined, server.personLinks.mint());
  });
  afterAll(async () => {
    ui?.close();
    await server?.close();
    await t?.close();
    process.env.HOME = savedHome;
    rmSync(home, { recursive: true, force: true });
  });

  async function paneLines(): Promise<Array<Record<string, unknown>>> {
    await t.core.audit.flush();
    return readFileSync(join(t.home, 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.kind === 'pane');
  }

  it('one line when it opens, one when it closes, none of the typing', async () => {
    const pane = await ui.client.call('pane.open', { execution_target: 'a', cols: 80, rows: 24 });
    let seen = '';
    const off = ui.client.on('pane.data', ({ pane_id, data }) => {
      if (pane_id === pane.pane_id) seen += typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    });
    await ui.client.call('pane.write', { pane_id: pane.pane_id, data: 'echo typed-by-a-person-4711\r' });
    while (!seen.includes('typed-by-a-person-4711')) await sleep(20);
    off();
    const { generation } = t.core.targets.snapshot('a');
    expect(await paneLines()).toEqual([
      expect.objectContaining({
        kind: 'pane',
        action: 'open',
        client: 'ui',
        person: 'link',
        capability: 'person',
        execution_target: 'a',
        generation,
        pane_id: pane.pane_id,
        outcome: 'opened',
      }),
    ]);
    await ui.client.call('pane.close', { pane_id: pane.pane_id });
    let lines = await paneLines();
    while (lines.length < 2) {
      await sleep(20);
      lines = await paneLines();
    }
    expect(lines[1]).toMatchObject({
      kind: 'pane',
      action: 'close',
      client: 'ui',
      person: 'link',
      capability: 'person',
      execution_target: 'a',
      generation,
      pane_id: pane.pane_id,
      outcome: 'exited',
    });
    const log = readFileSync(join(t.home, 'audit.jsonl'));
    expect(log.toString('utf8')).not.toContain('typed-by-a-person');
    expect(verifyChain(log, parseHead(readFileSync(headPath(join(t.home, 'audit.jsonl')), 'utf8')))).toMatchObject({
      whole: true,
    });
  });
});
