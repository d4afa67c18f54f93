import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TargetSnapshot } from '../provider.js';
import { localProvider } from './localProvider.js';

const snapshot: TargetSnapshot = {
  name: 'l',
  generation: 'g',
  identity: 'l#g',
  source: 'config',
  state: 'active',
  spec: { backend: 'local' },
  flags: localProvider.flags,
  timeoutSec: 10,
};
const env = localProvider.createEnvironment(snapshot, {
  home: mkdtempSync(join(tmpdir(), 'sb-local-')),
  resolveSpec: () => undefined,
});
const alive = (pattern: string): boolean =>
  spawnSync('pgrep', ['-f', pattern], { encoding: 'utf8' }).stdout.trim() !== '';

describe('local backend', () => {
  it('kills a background job whose shell already exited, children included', async () => {
    const h = await env.spawnBackground('sleep 2933 & echo started', { cwd: '/tmp' });
    let out = '';
    h.onData((d) => (out += d));
    const exited = new Promise<number | null>((resolve) => h.onExit((code) => resolve(code)));
    await expect.poll(() => out).toContain('started');
    await new Promise((r) => setTimeout(r, 200));
    expect(alive('sleep 2933')).toBe(true);
    await h.kill();
    await exited;
    expect(alive('sleep 2933')).toBe(false);
  });

  it('an aborted command returns at once and its group is gone', async () => {
    const ac = new AbortController();
    const running = env.exec('sleep 2934', { cwd: '/tmp', timeoutMs: 60_000, maxOutputChars: 1000, signal: ac.signal });
    await new Promise((r) => setTimeout(r, 300));
    ac.abort();
    const r = await running;
    expect(r.exitCode).not.toBe(0);
    expect(alive('sleep 2934')).toBe(false);
  });

  it('a shell that ignores SIGHUP still ends when its pane is closed', async () => {
    const shell = await env.openShell({ cwd: '/tmp', cols: 80, rows: 24 });
    let out = '';
    shell.onData((d) => (out += d));
    const exited = new Promise<void>((resolve) => shell.onExit(() => resolve()));
    // The same process under a name to look for, then deaf to the hangup that closing sends first.
    shell.write('exec -a sb-hup-2935 bash --norc\r');
    shell.write("trap '' HUP; echo trapped-$((1+1))\r");
    await expect.poll(() => out, { timeout: 20_000 }).toContain('trapped-2');
    expect(alive('sb-hup-2935')).toBe(true);
    shell.kill();
    await exited;
    expect(alive('sb-hup-2935')).toBe(false);
  }, 30_000);
});
