// claimProfile: a Core takes a free profile at once, refuses one a live Core serves, and waits for one whose Core is
// still stopping (it holds the lock and has already taken its core.json away).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimProfile, coreFilePath } from './coreFile.js';

const homes: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function profile(): string {
  const home = mkdtempSync(join(tmpdir(), 'sb-claim-'));
  homes.push(home);
  return home;
}

/** The profile's lock as a live Core holds it: an owner file naming a process that runs (not this one). */
function heldBy(home: string): { pid: number; release(): void } {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  const dir = `${coreFilePath(home)}.lock`;
  mkdirSync(dir);
  writeFileSync(join(dir, `pid-${child.pid}-t-${Date.now()}-h-00000000-abc123`), '');
  return { pid: child.pid!, release: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('claimProfile', () => {
  it('takes a free profile at once', async () => {
    const held = await claimProfile(profile());
    expect(held.stillHeld()).toBe(true);
    held.release();
  });

  it('refuses at once when a live Core serves the profile', async () => {
    const home = profile();
    const holder = heldBy(home);
    const info = {
      url: 'http://127.0.0.1:1/',
      ws_url: 'ws://127.0.0.1:1/ws',
      mcp_url: 'http://127.0.0.1:1/mcp',
      token: 't',
      pid: holder.pid,
      started_at: new Date().toISOString(),
      mode: 'serve',
    };
    writeFileSync(coreFilePath(home), JSON.stringify(info));
    const waits: Array<number | undefined> = [];
    await expect(claimProfile(home, { onWait: (pid) => waits.push(pid) })).rejects.toThrow(
      `a Switchboard Core already runs for the profile ${home} (pid ${holder.pid}, serve, http://127.0.0.1:1/)`,
    );
    expect(waits).toEqual([]);
  });

  it('waits for a Core that is stopping, then takes the profile', async () => {
    const home = profile();
    const holder = heldBy(home);
    const waits: Array<number | undefined> = [];
    const claimed = claimProfile(home, { onWait: (pid) => waits.push(pid) });
    await new Promise((r) => setTimeout(r, 400));
    // Still waiting: told once, with the stopping Core's pid.
    expect(waits).toEqual([holder.pid]);
    holder.release();
    const held = await claimed;
    expect(held.stillHeld()).toBe(true);
    held.release();
  });

  it('gives up after its wait, naming the process that holds the profile', async () => {
    const home = profile();
    const holder = heldBy(home);
    await expect(claimProfile(home, { waitMs: 300 })).rejects.toThrow(
      `a Switchboard Core (pid ${holder.pid}) holds the profile ${home} and has been starting or stopping for over 1 s`,
    );
  });
});
