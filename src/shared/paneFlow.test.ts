// A window's acknowledgements: chunks of ACK_CHUNK during a flood (few round trips), the rest once output stops.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ACK_CHUNK, ACK_IDLE_MS, PaneAcks } from './paneFlow.js';

describe('pane acknowledgements', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('acknowledges a flood of 64 KB batches in chunks, not once per batch, and the rest once it stops', () => {
    const sent: number[] = [];
    const acks = new PaneAcks((chars) => void sent.push(chars));
    const batches = 80;
    for (let i = 0; i < batches; i++) acks.written(65_536);
    // One round trip per 100,000 chars or more: acknowledging every batch was a JSON call and reply per 64 KB.
    expect(sent.length).toBeLessThanOrEqual(Math.ceil((batches * 65_536) / 100_000));
    for (const chars of sent) expect(chars).toBeGreaterThanOrEqual(ACK_CHUNK);
    vi.advanceTimersByTime(ACK_IDLE_MS);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(batches * 65_536);
  });

  it('what is left is acknowledged once output stops, not held for more output', () => {
    const sent: number[] = [];
    const acks = new PaneAcks((chars) => void sent.push(chars));
    acks.written(3000);
    acks.written(2000);
    vi.advanceTimersByTime(ACK_IDLE_MS - 1);
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(sent).toEqual([5000]);
    vi.advanceTimersByTime(10 * ACK_IDLE_MS);
    expect(sent).toEqual([5000]);
  });

  it('forgets what it held when reset (the pane went), and sends nothing for it', () => {
    const sent: number[] = [];
    const acks = new PaneAcks((chars) => void sent.push(chars));
    acks.written(4000);
    acks.reset();
    vi.advanceTimersByTime(10 * ACK_IDLE_MS);
    acks.flush();
    expect(sent).toEqual([]);
  });
});
