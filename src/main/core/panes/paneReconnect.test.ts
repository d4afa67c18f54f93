// The Core's reconnect loop for a pane whose connection dropped: the waits grow and cap, the new shell opens in the
// old one's directory at the pane's size under a marker line, a failure that waiting will not fix ends the pane and
// says why, and "now", "cancel", close and a removed target each stop the waiting as a person expects.
import { exitReasons } from '../../../shared/exitReasons.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PaneReconnect } from '../../../shared/api.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { ShellChannel, TargetSnapshot } from '../backends/index.js';
import type { Sessions } from '../sessions/index.js';
import { Panes, type PaneEnd } from './panes.js';
import { paneTestSnapshot } from './testSnapshot.js';
import { reconnectDelayMs, retriesAfter } from './paneReconnect.js';

interface FakeChannel {
  channel: ShellChannel;
  emit(text: string): void;
  lose(): void;
  written: string[];
  killed: boolean;
}

function fakeChannel(): FakeChannel {
  let onData: (d: string) => void = () => undefined;
  let onExit: (code: number | null, reason?: string) => void = () => undefined;
  const f: FakeChannel = {
    written: [],
    killed: false,
    emit: (t) => onData(t),
    lose: () => onExit(null, exitReasons.connectionLost),
    channel: {
      onData: (l) => void (onData = l),
      onExit: (l) => void (onExit = l),
      write: (d) => void f.written.push(d),
      resize: () => undefined,
      pause: () => undefined,
      resume: () => undefined,
      kill: () => void (f.killed = true),
    },
  };
  return f;
}

/** A Panes whose shells come from `next` (a channel, or an error to throw), recording what it told the windows. */
function setup(next: () => FakeChannel | Error, current = () => true) {
  const opened: Array<{ cwd: string; cols: number; rows: number }> = [];
  const text: string[] = [];
  const states: PaneReconnect[] = [];
  const exits: Array<{ reason?: string; detail?: string }> = [];
  const ends: PaneEnd[] = [];
  const reconnects: number[] = [];
  const sessions = {
    environment: () => ({
      stat: async () => ({ type: 'directory', size: 0 }),
      openShell: async (o: { cwd: string; cols: number; rows: number }) => {
        opened.push({ cwd: o.cwd, cols: o.cols, rows: o.rows });
        const n = next();
        if (n instanceof Error) throw n;
        return n.channel;
      },
    }),
    cwd: async () => '/agent-was-here',
    personCwd: async () => '/start',
  } as unknown as Sessions;
  const panes = new Panes(
    sessions,
    {
      data: (_id, data) => void text.push(Buffer.from(data).toString()),
      cwd: () => undefined,
      exit: (_id, _code, reason, detail) => void exits.push({ reason, detail }),
      reconnect: (_id, state) => void states.push(state),
    },
    undefined,
    current,
  );
  const snapshot = paneTestSnapshot('staging');
  const open = async () =>
    (
      await panes.open(snapshot, 80, 24, undefined, {
        onEnd: (e) => void ends.push(e),
        onReconnect: (n) => void reconnects.push(n),
      })
    ).pane_id;
  return { panes, opened, text, states, exits, ends, reconnects, open, all: () => text.join('') };
}

const unreachable = () => new SwitchboardError('target_unreachable', 'connection refused by 127.0.0.1:2222');

beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
afterEach(() => vi.useRealTimers());

describe('reconnect delays and retries', () => {
  it('double from 2 s and stay at 30 s; only a host that may come back is tried again', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(reconnectDelayMs)).toEqual([2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(retriesAfter('target_unreachable')).toBe(true);
    expect(retriesAfter('timeout')).toBe(true);
    for (const code of ['host_key_changed', 'host_key_unknown', 'auth_failed', 'bad_config', 'unknown_target'] as const)
      expect(retriesAfter(code)).toBe(false);
  });
});

describe("a person's new pane", () => {
  it("opens in the target's own cwd, never the agent's last (a folder the agent chose may run its hooks)", async () => {
    const s = setup(() => fakeChannel());
    await s.open();
    expect(s.opened[0]?.cwd).toBe('/start');
  });
});

describe('a pane whose connection drops', () => {
  it('reopens in the last directory at the last size, with a marker, and the keys go to the new shell', async () => {
    const first = fakeChannel();
    const second = fakeChannel();
    const queue = [first, second];
    const t = setup(() => queue.shift() ?? new Error('no more'));
    const id = await t.open();
    first.emit('\x1b]7;file://host/srv/app\x07$ ');
    await vi.advanceTimersByTimeAsync(10);
    t.panes.resize(id, 100, 30);
    first.lose();
    expect(t.panes.info(id).status).toBe('reconnecting');
    expect(t.states.at(-1)).toMatchObject({ state: 'waiting', attempt: 1, retry_at: Date.now() + 2000 });
    expect(t.all()).toMatch(/— connection to staging lost at \d\d:\d\d; reconnecting —/);
    // Typing while it is down goes nowhere (not into the dead channel).
    t.panes.write(id, 'ls\r');
    expect(first.written).toEqual([]);

    await vi.advanceTimersByTimeAsync(1999);
    expect(t.opened).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.opened[1]).toEqual({ cwd: '/srv/app', cols: 100, rows: 30 });
    expect(t.states.at(-1)).toMatchObject({ state: 'reconnected', attempt: 1 });
    expect(t.reconnects).toEqual([1]);
    expect(t.panes.info(id)).toMatchObject({ status: 'open', pane_id: id });
    expect(t.all()).toMatch(/— reconnected to staging at \d\d:\d\d —/);
    t.panes.write(id, 'pwd\r');
    expect(second.written).toEqual(['pwd\r']);
    // The old channel saying more about its end changes nothing.
    first.lose();
    expect(t.panes.info(id).status).toBe('open');
    expect(t.exits).toEqual([]);
    expect(t.ends).toEqual([]);
  });

  it('keeps trying with growing waits while the host is down, saying why each attempt failed', async () => {
    const first = fakeChannel();
    let calls = 0;
    const t = setup(() => (calls++ === 0 ? first : unreachable()));
    await t.open();
    first.lose();
    for (const wait of [2000, 4000, 8000, 16_000, 30_000]) {
      const at = t.states.at(-1)!;
      expect(at.state).toBe('waiting');
      expect(at.retry_at! - Date.now()).toBe(wait);
      await vi.advanceTimersByTimeAsync(wait);
    }
    expect(t.states.at(-1)).toMatchObject({ state: 'waiting', attempt: 6, error: expect.stringMatching(/refused/) });
    expect(t.states.at(-1)!.retry_at! - Date.now()).toBe(30_000);
    expect(t.exits).toEqual([]);
  });

  for (const [code, why] of [
    ['host_key_changed', /host key/],
    ['auth_failed', /authentication failed/],
  ] as const) {
    it(`does not try again after ${code}, and says why`, async () => {
      const first = fakeChannel();
      let calls = 0;
      const t = setup(() =>
        calls++ === 0
          ? first
          : new SwitchboardError(code, `${code === 'auth_failed' ? 'authentication failed' : 'the host key changed'}`),
      );
      const id = await t.open();
      first.lose();
      await vi.advanceTimersByTimeAsync(2000);
      expect(t.exits).toEqual([{ reason: exitReasons.connectionLost, detail: expect.stringMatching(why) }]);
      expect(t.exits[0]!.detail).toMatch(/^not reconnecting: /);
      expect(t.ends).toEqual([{ exit_code: null, reason: exitReasons.connectionLost, status: 'lost' }]);
      expect(t.panes.has(id)).toBe(true);
      await vi.advanceTimersByTimeAsync(120_000);
      expect(t.opened).toHaveLength(2);
    });
  }

  it('"now" tries at once; "cancel" ends the pane and no attempt follows', async () => {
    const first = fakeChannel();
    let calls = 0;
    const t = setup(() => (calls++ === 0 ? first : unreachable()));
    const id = await t.open();
    first.lose();
    t.panes.reconnect(id, 'now');
    await vi.advanceTimersByTimeAsync(0);
    expect(t.opened).toHaveLength(2);
    expect(t.states.at(-1)).toMatchObject({ state: 'waiting', attempt: 2 });
    t.panes.reconnect(id, 'cancel');
    expect(t.exits).toEqual([{ reason: exitReasons.connectionLost, detail: undefined }]);
    expect(t.panes.info(id).status).toBe('lost');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.opened).toHaveLength(2);
    expect(t.ends).toHaveLength(1);
  });

  it('an early attempt that fails counts the same wait down again: the waits stay 2, 4, 8 s', async () => {
    const first = fakeChannel();
    let calls = 0;
    const t = setup(() => (calls++ === 0 ? first : unreachable()));
    const id = await t.open();
    first.lose();
    const waitNow = (): number => t.states.at(-1)!.retry_at! - Date.now();
    expect(waitNow()).toBe(2000);
    // A key pressed (or "Reconnect now") a second into the first wait: an attempt now, which fails.
    await vi.advanceTimersByTimeAsync(1000);
    t.panes.reconnect(id, 'now');
    await vi.advanceTimersByTimeAsync(0);
    expect(t.opened).toHaveLength(2);
    expect(t.states.at(-1)).toMatchObject({ state: 'waiting', attempt: 2, error: expect.stringMatching(/refused/) });
    expect(waitNow()).toBe(2000);
    // Twice in a row changes nothing either; then the waits run out one by one and grow.
    t.panes.reconnect(id, 'now');
    await vi.advanceTimersByTimeAsync(0);
    expect(waitNow()).toBe(2000);
    for (const wait of [2000, 4000, 8000]) {
      expect(waitNow()).toBe(wait);
      await vi.advanceTimersByTimeAsync(wait);
    }
    expect(waitNow()).toBe(16_000);
    expect(t.states.at(-1)).toMatchObject({ attempt: 6 });
  });

  it('closing the pane while it waits stops the attempts and ends it once', async () => {
    const first = fakeChannel();
    const t = setup(() => first);
    const id = await t.open();
    first.lose();
    t.panes.close(id);
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.opened).toHaveLength(1);
    expect(t.ends).toEqual([{ exit_code: null, reason: exitReasons.connectionLost, status: 'lost' }]);
  });

  it('a shell opened after the pane was closed mid-attempt is killed, not adopted', async () => {
    const first = fakeChannel();
    const late = fakeChannel();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    let calls = 0;
    const t = setup(() => (calls++ === 0 ? first : late));
    const id = await t.open();
    // Hold the second openShell until the pane is gone.
    const env = (t.panes as unknown as { sessions: Sessions }).sessions.environment({} as TargetSnapshot);
    const openShell = env.openShell.bind(env);
    env.openShell = async (o) => (await gate, openShell(o));
    (t.panes as unknown as { sessions: { environment: () => typeof env } }).sessions.environment = () => env;
    first.lose();
    await vi.advanceTimersByTimeAsync(2000);
    t.panes.close(id);
    release();
    await vi.advanceTimersByTimeAsync(0);
    expect(late.killed).toBe(true);
  });

  it('stops when the target was removed or replaced since the shell opened', async () => {
    const first = fakeChannel();
    let current = true;
    const t = setup(
      () => first,
      () => current,
    );
    await t.open();
    first.lose();
    current = false;
    await vi.advanceTimersByTimeAsync(2000);
    expect(t.exits).toEqual([
      { reason: exitReasons.connectionLost, detail: expect.stringMatching(/removed or replaced/) },
    ]);
    expect(t.opened).toHaveLength(1);
  });
});
