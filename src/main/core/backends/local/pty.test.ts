// The local pty read as bytes: every read lands in one buffer kept for the pty (no allocation per read), nothing is
// lost or reordered, a flood is read several reads per turn of the event loop, and pausing stops the reads until
// resumed, a pause from inside a read included.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPty } from './pty.js';

describe('local pty bytes', () => {
  it('reads into one reused buffer, and the reads put together are the output', async () => {
    const pty = openPty({
      cwd: '/tmp',
      cols: 80,
      rows: 24,
      env: process.env,
      shell: '/bin/bash',
      args: ['-c', 'seq 1 100000; sleep 0.2'],
    });
    const buffers = new Set<ArrayBufferLike>();
    const parts: Buffer[] = [];
    pty.onBytes!((data) => {
      buffers.add(data.buffer);
      // A copy: the view is only good during the call.
      parts.push(Buffer.from(data));
    });
    await new Promise<void>((resolve) => pty.onExit(() => resolve()));
    const lines = Buffer.concat(parts).toString('utf8').split('\r\n').filter(Boolean);
    expect(lines.length).toBe(100_000);
    expect(lines.every((l, i) => l === String(i + 1))).toBe(true);
    expect(parts.length).toBeGreaterThan(10);
    expect(buffers.size).toBe(1);
  });

  it('stops reading while paused and goes on when resumed', async () => {
    const pty = openPty({
      cwd: '/tmp',
      cols: 80,
      rows: 24,
      env: process.env,
      shell: '/bin/bash',
      args: ['-c', "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo DONE; sleep 1"],
    });
    let got = 0;
    let text = '';
    pty.onBytes!((data) => {
      got += data.length;
      text = (text + Buffer.from(data).toString('latin1')).slice(-16);
    });
    while (got === 0) await sleep(10);
    pty.pause();
    await sleep(100);
    const paused = got;
    await sleep(300);
    expect(got).toBe(paused);
    expect(paused).toBeLessThan(3_000_000);
    pty.resume();
    for (let i = 0; i < 500 && !text.includes('DONE'); i++) await sleep(20);
    expect(text).toContain('DONE');
    expect(got).toBeGreaterThan(3_000_000);
    pty.kill();
  });

  it(
    'reads a flood several reads per turn of the event loop, ' + 'and stops within the turn when a read pauses it',
    async () => {
      const pty = openPty({
        cwd: '/tmp',
        cols: 80,
        rows: 24,
        env: process.env,
        shell: '/bin/bash',
        args: ['-c', "head -c 3000000 /dev/zero | tr '\\0' x; echo; echo DONE; sleep 1"],
      });
      // A turn: one pass of the loop, counted where it ends (setImmediate runs after the loop's reads).
      let turn = 0;
      let turning = true;
      const tick = (): void => void (turning && (turn++, setImmediate(tick)));
      tick();
      const readsPerTurn = new Map<number, number>();
      let got = 0;
      let text = '';
      let paused = false;
      let pausedOnce = false;
      let readWhilePaused = false;
      pty.onBytes!((data) => {
        if (paused) readWhilePaused = true;
        readsPerTurn.set(turn, (readsPerTurn.get(turn) ?? 0) + 1);
        got += data.length;
        text = (text + Buffer.from(data).toString('latin1')).slice(-16);
        // As flow control does: the pane pauses from inside a read.
        if (got > 1_000_000 && !pausedOnce) {
          paused = pausedOnce = true;
          pty.pause();
          setTimeout(() => ((paused = false), pty.resume()), 200);
        }
      });
      for (let i = 0; i < 500 && !text.includes('DONE'); i++) await sleep(20);
      turning = false;
      expect(text).toContain('DONE');
      expect(got).toBeGreaterThan(3_000_000);
      expect(readWhilePaused).toBe(false);
      expect(Math.max(...readsPerTurn.values())).toBeGreaterThanOrEqual(4);
      pty.kill();
    },
  );

  it('a login dash reports its cwd with OSC 7 after cd (its ENV file), which is gone once read', async () => {
    const home = mkdtempSync(join(tmpdir(), 'sb-pty-dash-'));
    const ours = () => readdirSync(tmpdir()).filter((f) => f.startsWith('sb-osc7-'));
    const before = ours();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, PS1: '$ ' };
    const pty = openPty({ cwd: '/tmp', cols: 80, rows: 24, env, shell: '/bin/dash', args: ['-l'] });
    let text = '';
    pty.onBytes!((data) => {
      text += Buffer.from(data).toString('utf8');
    });
    for (let i = 0; i < 250 && !text.includes('$ '); i++) await sleep(20);
    pty.write('cd /usr\r');
    for (let i = 0; i < 250 && !text.includes('/usr\x07'); i++) await sleep(20);
    expect(text).toMatch(/\x1b\]7;file:\/\/[^/\x07\x1b]*\/usr\x07/);
    expect(ours().filter((f) => !before.includes(f))).toEqual([]);
    pty.kill();
    rmSync(home, { recursive: true, force: true });
  });
});
