// Panes' batches from a channel that hands over bytes: characters cut between reads (even reads far apart) arrive
// whole, chars are counted as the text's length, and OSC 7 split across reads still moves the pane's cwd.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ShellChannel } from '../backends/index.js';
import type { Sessions } from '../sessions/index.js';
import { holdFrame } from './framePool.js';
import { Panes } from './panes.js';
import { paneTestSnapshot } from './testSnapshot.js';
import { paneFrameOf } from './paneBytes.js';
import { decodePaneFrame } from '../../../shared/paneFrame.js';

/** A shell channel whose output the test writes, read as bytes (as the local pty is). */
function bytesChannel(): { channel: ShellChannel; emit: (b: Buffer) => void; exit: () => void } {
  let onBytes: (b: Uint8Array) => void = () => undefined;
  let onExit: (code: number | null) => void = () => undefined;
  const channel: ShellChannel = {
    onData: () => undefined,
    onBytes: (l) => void (onBytes = l),
    onExit: (l) => void (onExit = l),
    write: () => undefined,
    resize: () => undefined,
    pause: () => undefined,
    resume: () => undefined,
    kill: () => undefined,
  };
  return { channel, emit: (b) => onBytes(b), exit: () => onExit(0) };
}

async function openPane(channel: ShellChannel) {
  const batches: Array<{ data: Uint8Array; chars: number }> = [];
  const cwds: string[] = [];
  const sessions = {
    environment: () => ({ stat: async () => ({ type: 'directory', size: 0 }), openShell: async () => channel }),
    cwd: async () => '/start',
    personCwd: async () => '/start',
  } as unknown as Sessions;
  const panes = new Panes(sessions, {
    // Kept past the call, so held as a connection holds a frame it is still sending (framePool.ts).
    data: (_id, data, chars) => (holdFrame(data), void batches.push({ data, chars })),
    cwd: (_id, cwd) => void cwds.push(cwd),
    exit: () => undefined,
    reconnect: () => undefined,
  });
  const { pane_id: paneId } = await panes.open(paneTestSnapshot('t'), 80, 24);
  return { panes, batches, cwds, paneId };
}

const strict = new TextDecoder('utf-8', { fatal: true });

describe('pane batches of bytes', () => {
  it('a character cut between two reads, with a pause longer than a batch between them, arrives whole', async () => {
    const { channel, emit, exit } = bytesChannel();
    const { batches } = await openPane(channel);
    const text = 'aé€😀b';
    const bytes = Buffer.from(text);
    // Cut inside each many-byte character in turn, waiting past the batch timer between the two halves; then one
    // byte a read, so some reads are only part of a character.
    for (const at of [2, 4, 5, 8, 9, 10]) {
      emit(bytes.subarray(0, at));
      await sleep(30);
      emit(bytes.subarray(at));
      await sleep(30);
    }
    for (let i = 0; i < bytes.length; i++) {
      emit(bytes.subarray(i, i + 1));
      await sleep(15);
    }
    exit();
    for (const b of batches) expect(b.chars).toBe(strict.decode(b.data).length);
    expect(batches.map((b) => strict.decode(b.data)).join('')).toBe(text.repeat(7));
  });

  it('counts chars of ASCII and of many-byte output as the JSON text would', async () => {
    const { channel, emit, exit } = bytesChannel();
    const { batches } = await openPane(channel);
    emit(Buffer.from('x'.repeat(70_000)));
    emit(Buffer.from('é€😀'.repeat(1000)));
    exit();
    expect(batches.reduce((n, b) => n + b.chars, 0)).toBe(70_000 + 'é€😀'.length * 1000);
  });

  it('reads each batch into its binary frame: the frame holds exactly the batch, cut characters and all', async () => {
    const { channel, emit, exit } = bytesChannel();
    const { batches, paneId } = await openPane(channel);
    const bytes = Buffer.from('x'.repeat(100_000) + 'é€😀'.repeat(20_000));
    // Reads cut inside characters, large enough to fill several batches.
    for (let at = 0; at < bytes.length; at += 4093) emit(bytes.subarray(at, at + 4093));
    exit();
    expect(batches.length).toBeGreaterThan(2);
    for (const b of batches) {
      const frame = paneFrameOf(b.data);
      expect(frame).toBeDefined();
      const decoded = decodePaneFrame(frame!);
      expect(decoded.pane_id).toBe(paneId);
      expect(decoded.chars).toBe(b.chars);
      // The batch is a view into its frame, not a copy of it.
      expect(decoded.data.buffer).toBe(b.data.buffer);
      expect(Buffer.from(decoded.data).equals(Buffer.from(b.data))).toBe(true);
    }
    expect(batches.map((b) => strict.decode(b.data)).join('')).toBe(strict.decode(bytes));
  });

  it(
    "sends the first output after a quiet spell at once (a keystroke's echo), " +
      'and batches output that keeps coming',
    async () => {
      const { channel, emit, exit } = bytesChannel();
      const { batches } = await openPane(channel);
      const texts = () => batches.map((b) => strict.decode(b.data));
      await sleep(30);
      emit(Buffer.from('a'));
      // Sent before anything else runs: no batch timer.
      expect(texts()).toEqual(['a']);
      emit(Buffer.from('b'));
      emit(Buffer.from('c'));
      expect(texts()).toEqual(['a']);
      await sleep(30);
      expect(texts()).toEqual(['a', 'bc']);
      // Quiet again: the next output goes at once.
      emit(Buffer.from('d'));
      expect(texts()).toEqual(['a', 'bc', 'd']);
      exit();
    },
  );

  it('follows an OSC 7 split over three reads', async () => {
    const { channel, emit, exit } = bytesChannel();
    const { cwds } = await openPane(channel);
    const seq = Buffer.from('out\x1b]7;file://h/home/zoë\x07$ ');
    emit(seq.subarray(0, 5));
    emit(seq.subarray(5, 20));
    emit(seq.subarray(20));
    exit();
    expect(cwds).toEqual(['/home/zoë']);
  });
});
