import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ProgressNote } from '../../../shared/api.js';
import { CallProgress, size } from './callProgress.js';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
});
afterEach(() => vi.useRealTimers());

function watch(target = 'compute'): { notes: ProgressNote[]; progress: CallProgress } {
  const notes: ProgressNote[] = [];
  return { notes, progress: new CallProgress((n) => notes.push(n), target, Date.now()) };
}

describe('CallProgress', () => {
  it('a quick call says nothing', () => {
    const { notes, progress } = watch();
    vi.advanceTimersByTime(900);
    progress.stop();
    vi.advanceTimersByTime(10_000);
    expect(notes).toEqual([]);
  });

  it('a held call says so at once and every 2 s: whom it waits for, since when, until when', () => {
    const { notes, progress } = watch();
    vi.advanceTimersByTime(300);
    progress.asked(new Date(Date.now()).toISOString(), new Date(Date.now() + 120_000).toISOString());
    expect(notes.at(-1)?.message).toBe('waiting for a person to approve on compute (asked 0 s ago, denies in 2:00)');
    vi.advanceTimersByTime(14_000);
    expect(notes.at(-1)?.message).toBe('waiting for a person to approve on compute (asked 14 s ago, denies in 1:46)');
    expect(notes).toHaveLength(8);
    for (let i = 1; i < notes.length; i++) expect(notes[i]!.progress).toBeGreaterThan(notes[i - 1]!.progress);
  });

  it('a running call says for how long and how much it printed, once it has run a second', () => {
    const { notes, progress } = watch();
    let bytes = 0;
    progress.counting({
      get bytes() {
        return bytes;
      },
    });
    vi.advanceTimersByTime(1000);
    expect(notes.map((n) => n.message)).toEqual(['running on compute for 1 s']);
    bytes = 3_200_000;
    vi.advanceTimersByTime(2000);
    expect(notes.at(-1)?.message).toBe('running on compute for 3 s, 3.2 MB of output so far');
    progress.stop();
    vi.advanceTimersByTime(10_000);
    expect(notes).toHaveLength(2);
  });

  it('a caller that throws is not told again', () => {
    let calls = 0;
    new CallProgress(
      () => {
        calls++;
        throw new Error('gone');
      },
      'a',
      Date.now(),
    );
    vi.advanceTimersByTime(10_000);
    expect(calls).toBe(1);
  });

  it('sizes read as a person reads them', () => {
    expect([size(512), size(48_000), size(3_240_000)]).toEqual(['512 B', '48 KB', '3.2 MB']);
  });
});
