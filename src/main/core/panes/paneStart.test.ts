// Where a window's pane starts and what it replays: pane.open's cwd starts the shell in that directory (no `cd` line
// typed into it), and after pane.clear a window that resumes the pane gets its current line, not what was cleared.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Core } from '../core.js';

const root = mkdtempSync(join(tmpdir(), 'sb-pane-start-'));
const home = join(root, 'home');
const work = join(root, 'work');
const elsewhere = join(root, 'elsewhere', 'deeper');
let core: Core;
const person = { client: 'ui', person: 'window', personRefusal: () => undefined } as const;
const output = new Map<string, string>();

beforeAll(async () => {
  for (const d of [home, work, elsewhere]) mkdirSync(d, { recursive: true });
  writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    box: { backend: local, cwd: ${work} }\n`);
  core = await new Core({ home }).start();
  core.onEvent((event, payload) => {
    if (event !== 'pane.data') return;
    const p = payload as { pane_id: string; data: Uint8Array | string };
    output.set(p.pane_id, (output.get(p.pane_id) ?? '') + Buffer.from(p.data).toString());
  });
});
afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(params: Record<string, unknown> = {}): Promise<string> {
  const info = (await core.invoke(
    'pane.open',
    { execution_target: 'box', cols: 80, rows: 24, keep: true, ...params },
    person,
  )) as { pane_id: string; cwd: string };
  return info.pane_id;
}
const seen = (id: string, needle: string) =>
  expect.poll(() => output.get(id) ?? '', { timeout: 15_000 }).toContain(needle);

describe('pane.open with a cwd', () => {
  it('starts the shell there, with nothing typed into it', async () => {
    const id = await open({ cwd: elsewhere });
    expect(core.panes.info(id).cwd).toBe(elsewhere);
    await core.invoke('pane.write', { pane_id: id, data: 'echo "at:$(pwd)"\r' }, person);
    await seen(id, `at:${elsewhere}`);
    expect(output.get(id)).not.toContain('cd --');
  });

  it('starts where the target works without one, and refuses a relative path', async () => {
    const id = await open();
    expect(core.panes.info(id).cwd).toBe(work);
    await expect(open({ cwd: 'relative/dir' })).rejects.toMatchObject({
      code: 'bad_request',
      message: expect.stringMatching(/absolute path/),
    });
  });
});

describe('pane.clear', () => {
  it('a window that resumes the pane after a Clear replays its current line only', async () => {
    const id = await open();
    await core.invoke('pane.write', { pane_id: id, data: 'echo before-$((1+1))\r' }, person);
    await seen(id, 'before-2');
    // The prompt after it has come.
    await expect.poll(() => output.get(id) ?? '', { timeout: 15_000 }).toMatch(/before-2\r?\n[^\n]*\$ $/);
    await core.invoke('pane.clear', { pane_id: id }, person);
    const resumed = (await core.invoke('pane.resume', { pane_id: id }, person)) as { scrollback: string };
    expect(resumed.scrollback).not.toContain('before-2');
    expect(resumed.scrollback).toMatch(/\$ $/);
  });
});
