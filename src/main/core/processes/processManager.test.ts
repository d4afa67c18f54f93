import { describe, expect, it } from 'vitest';
import type { BackgroundHandle, Environment, TargetSnapshot } from '../backends/index.js';
import type { ProcessInfo } from '../../../shared/api.js';
import { BUFFER_CHARS, ProcessManager } from './processManager.js';
import { RollingBuffer } from './rollingBuffer.js';
import { heapAfterCollection } from '../../../../scripts/heapProbe.js';

/** A background handle the test drives by hand. */
function fakeProcess() {
  let data: (d: string) => void = () => undefined;
  let exit: (code: number | null, reason?: string) => void = () => undefined;
  const written: string[] = [];
  const handle: BackgroundHandle = {
    onData: (l) => (data = l),
    onExit: (l) => (exit = l),
    write: (d) => void written.push(d),
    kill: async () => exit(143, 'killed by SIGTERM'),
  };
  return {
    handle,
    written,
    emit: (d: string) => data(d),
    end: (code: number | null, reason?: string) => exit(code, reason),
  };
}

function snap(name: string, generation = 'g1'): TargetSnapshot {
  return {
    name,
    generation,
    identity: `${name}#${generation}`,
    source: 'config',
    state: 'active',
    spec: { backend: 'local' },
    flags: {
      is_remote: false,
      is_container: false,
      skip_container_guards: false,
      supports_pty: true,
      supports_stdin: true,
      supports_streams: true,
      strip_env_keys: [],
      cache_path_base: '~/.cache/switchboard',
      session_isolated_when_nonpersistent: false,
      default_cwd: '~',
    },
    timeoutSec: 10,
  };
}

function envWith(queue: Array<ReturnType<typeof fakeProcess>>): Environment {
  return { spawnBackground: async () => queue.shift()!.handle } as unknown as Environment;
}

describe('ProcessManager', () => {
  it('polls new output only, logs the last N lines, and reports the exit', async () => {
    const p = fakeProcess();
    const m = new ProcessManager();
    const info = await m.start(snap('a'), envWith([p]), 'job', '/w');
    p.emit('one\ntwo\n');
    expect(m.poll(info.session_id).output).toBe('one\ntwo\n');
    p.emit('three\n');
    expect(m.poll(info.session_id).output).toBe('three\n');
    expect(m.poll(info.session_id).output).toBe('');
    expect(m.log(info.session_id, 2).output).toBe('[… 4 earlier chars not shown …]\ntwo\nthree\n');
    expect(m.log(info.session_id).output).toBe('one\ntwo\nthree\n');
    p.end(0);
    expect(m.info(info.session_id)).toMatchObject({ status: 'exited', exit_code: 0, output_chars: 14 });
    expect(m.info(info.session_id).ended_at).not.toBeNull();
    await m.shutdown();
  });

  it('keeps a bounded rolling buffer and says what was cut', async () => {
    const p = fakeProcess();
    const m = new ProcessManager({ bufferChars: 100 });
    const { session_id } = await m.start(snap('a'), envWith([p]), 'job', '/w');
    for (let i = 0; i < 100; i++) p.emit(`line ${String(i).padStart(3, '0')}\n`);
    const polled = m.poll(session_id).output;
    expect(polled).toMatch(/^\[… \d+ chars dropped since the last poll/);
    expect(polled.endsWith('line 099\n')).toBe(true);
    expect(polled.length).toBeLessThan(200);
    expect(m.log(session_id, 1000).output).toMatch(/^\[… \d+ earlier chars not shown …\]\n/);
    expect(m.info(session_id).output_chars).toBe(900);
    await m.shutdown();
  });

  it('waits with a timeout (partial output) or until the end', async () => {
    const p = fakeProcess();
    const m = new ProcessManager();
    const { session_id } = await m.start(snap('a'), envWith([p]), 'job', '/w');
    p.emit('partial');
    expect(await m.wait(session_id, 50)).toMatchObject({ timed_out: true, status: 'running', output: 'partial' });
    setTimeout(() => {
      p.emit(' rest');
      p.end(2);
    }, 20);
    expect(await m.wait(session_id, 5000)).toMatchObject({
      timed_out: false,
      status: 'exited',
      exit_code: 2,
      output: ' rest',
    });
    await m.shutdown();
  });

  it('kills the group, refuses writes to finished processes, and marks lost channels', async () => {
    const p = fakeProcess();
    const q = fakeProcess();
    const m = new ProcessManager();
    const a = await m.start(snap('a'), envWith([p]), 'job', '/w');
    m.write(a.session_id, 'input\n');
    expect(p.written).toEqual(['input\n']);
    expect(await m.kill(a.session_id)).toMatchObject({ status: 'killed', exit_code: 143 });
    expect(() => m.write(a.session_id, 'x')).toThrow(/been killed/);
    const b = await m.start(snap('a'), envWith([q]), 'job2', '/w');
    q.end(null, 'connection lost');
    expect(m.poll(b.session_id)).toMatchObject({ status: 'lost', reason: 'connection lost' });
    await m.shutdown();
  });

  it('scopes by target name: other targets are refused, session_id alone finds any', async () => {
    const m = new ProcessManager();
    const pa = fakeProcess();
    const pb = fakeProcess();
    const pb2 = fakeProcess();
    const a = await m.start(snap('a'), envWith([pa]), 'ja', '/w');
    const b = await m.start(snap('b', 'g1'), envWith([pb]), 'jb', '/w');
    const b2 = await m.start(snap('b', 'g2'), envWith([pb2]), 'jb2', '/w');
    expect(m.list({ target: 'a' }).map((p) => p.session_id)).toEqual([a.session_id]);
    expect(
      m
        .list({ target: 'b' })
        .map((p) => p.session_id)
        .sort(),
    ).toEqual([b.session_id, b2.session_id].sort());
    expect(m.list().length).toBe(3);
    expect(() => m.poll(b.session_id, { target: 'a' })).toThrow(expect.objectContaining({ code: 'not_permitted' }));
    expect(() => m.poll('proc_nope')).toThrow(expect.objectContaining({ code: 'unknown_process' }));
    expect(m.poll(b.session_id).session_id).toBe(b.session_id);
    await m.shutdown();
  });

  it('busy(identity) is true while a process runs or work is held', async () => {
    const m = new ProcessManager();
    const p = fakeProcess();
    expect(m.busy('a#g1')).toBe(false);
    await m.start(snap('a'), envWith([p]), 'job', '/w');
    expect(m.busy('a#g1')).toBe(true);
    expect(m.busy('a#g2')).toBe(false);
    p.end(0);
    expect(m.busy('a#g1')).toBe(false);
    const release = m.hold('a#g1');
    expect(m.busy('a#g1')).toBe(true);
    release();
    release();
    expect(m.busy('a#g1')).toBe(false);
    await m.shutdown();
  });

  it('keeps finished processes for the TTL and at most maxFinished of them', async () => {
    let now = 1_000_000;
    const m = new ProcessManager({ now: () => now, finishedTtlMs: 30 * 60_000, maxFinished: 3 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const p = fakeProcess();
      ids.push((await m.start(snap('a'), envWith([p]), `j${i}`, '/w')).session_id);
      now += 1000;
      p.end(0);
    }
    expect(
      m
        .list()
        .map((p) => p.command)
        .sort(),
    ).toEqual(['j2', 'j3', 'j4']);
    const running = fakeProcess();
    await m.start(snap('a'), envWith([running]), 'long', '/w');
    now += 31 * 60_000;
    expect(m.list().map((p) => p.command)).toEqual(['long']);
    await m.shutdown();
  });

  it('emits processes.changed and process.output, coalesced', async () => {
    const changed: ProcessInfo[][] = [];
    const output: string[] = [];
    const m = new ProcessManager({
      eventDelayMs: 5,
      onChanged: (l) => changed.push(l),
      onOutput: (_id, d) => output.push(d),
    });
    const p = fakeProcess();
    await m.start(snap('a'), envWith([p]), 'job', '/w');
    p.emit('a');
    p.emit('b');
    await new Promise((r) => setTimeout(r, 30));
    expect(output).toEqual(['ab']);
    expect(changed.at(-1)?.[0]).toMatchObject({ status: 'running', command: 'job' });
    p.emit('c');
    p.end(0);
    await new Promise((r) => setTimeout(r, 30));
    expect(output).toEqual(['ab', 'c']);
    expect(changed.at(-1)?.[0]).toMatchObject({ status: 'exited' });
    await m.shutdown();
  });
});

describe('RollingBuffer', () => {
  it('tails by lines, with and without a trailing newline', () => {
    const b = new RollingBuffer(1000);
    b.push('a\nb\nc');
    expect(b.tail(1)).toBe('[… 4 earlier chars not shown …]\nc');
    expect(b.tail(5)).toBe('a\nb\nc');
    expect(b.since(2)).toEqual({ text: 'b\nc', lost: 0 });
  });
  it('keeps a process that prints a char at a time in about its own size, not a node per char', () => {
    const before = heapAfterCollection();
    const b = new RollingBuffer(BUFFER_CHARS);
    for (let i = 0; i < 290_000; i++) b.push(i % 80 === 79 ? '\n' : '.');
    const kept = heapAfterCollection() - before;
    // 290,000 chars in one string: 0.3 MB. As a rope of its pushes, it was about 10 MB.
    expect(kept).toBeLessThan(3_000_000);
    expect(b.total).toBe(290_000);
    expect(b.tail(1)).toBe(`[… 289920 earlier chars not shown …]\n${'.'.repeat(79)}\n`);
  });
});
