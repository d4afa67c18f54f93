// The window's page may approve only when it was opened with the approver link `serve` printed: the secret rides in
// the URL's #fragment, never in core.json, so a tool call that reads core.json has the token but not the secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

/** One approvals.decide over the page's socket (Origin set as a browser sets it); the error code, or 'ok'. */
async function decideFromPage(served: Served, approver?: string): Promise<string> {
  const origin = served.url.replace(/\/$/, '');
  const query = `token=${encodeURIComponent(served.token)}${approver !== undefined ? `&approver=${encodeURIComponent(approver)}` : ''}`;
  const ws = new WebSocket(`${served.url.replace('http', 'ws')}ws?${query}`, { headers: { origin } });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  ws.send(JSON.stringify({ type: 'call', id: 1, method: 'approvals.decide', params: { id: 'nope', decision: 'approve' } }));
  const reply = await new Promise<{ ok: boolean; error?: { code: string; message: string } }>((resolve) => ws.once('message', (m) => resolve(JSON.parse(String(m)))));
  ws.close();
  return reply.ok ? 'ok' : `${reply.error!.code}: ${reply.error!.message}`;
}

describe('the approver secret', () => {
  const home = tempHome('sb-approver-');
  let served: Served;
  beforeAll(async () => {
    ensureBuilt();
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('is in the printed URL, after #, and not in core.json', () => {
    expect(served.approver).toMatch(/^[\w-]{20,}$/);
    expect(served.openUrl).toContain(`#approver=${served.approver}`);
    expect(readFileSync(join(home, 'core.json'), 'utf8')).not.toContain(served.approver);
  });

  it('lets the page approve; without it (or with a wrong one) approving is refused', async () => {
    // Past the approver gate, the broker answers: there is no such pending approval.
    expect(await decideFromPage(served, served.approver)).toMatch(/^bad_request: no pending approval nope/);
    expect(await decideFromPage(served)).toMatch(/^not_permitted: only a person may approve: this page was not opened with the approver link/);
    expect(await decideFromPage(served, served.approver.slice(1) + 'x')).toMatch(/^not_permitted/);
  });
});
