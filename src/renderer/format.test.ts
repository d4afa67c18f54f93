import { describe, expect, it } from 'vitest';
import { callOutcome, duration, elapsed, shortGeneration } from './format.js';

describe('format', () => {
  it.each([
    [undefined, ''],
    [0, '0 ms'],
    [999.4, '999 ms'],
    [1500, '1.5 s'],
    [42_000, '42 s'],
    [125_000, '2m 5s'],
    [3_780_000, '1h 3m'],
  ])('duration(%s) = %j', (ms, text) => expect(duration(ms)).toBe(text));

  it('elapsed runs to now while a process runs', () => {
    expect(elapsed('2026-01-01T00:00:00Z', null, Date.parse('2026-01-01T00:00:02Z'))).toBe('2.0 s');
    expect(elapsed('2026-01-01T00:00:00Z', '2026-01-01T00:00:00.250Z', 0)).toBe('250 ms');
  });

  it('shortens long generations only', () => {
    expect(shortGeneration('3')).toBe('3');
    expect(shortGeneration('c5ba902d41e0')).toBe('c5ba902');
  });
});

describe('callOutcome', () => {
  it.each([
    [{ status: 'ok', exit_code: 0 }, 'ok', 'ok'],
    [{ status: 'ok', exit_code: 2 }, 'exit', 'exit 2'],
    [{ status: 'ok', exit_code: 137 }, 'exit', 'exit 137'],
    [{ status: 'ok' }, 'ok', 'ok'],
    [{ status: 'ok', exit_code: null }, 'ok', 'ok'],
    [{ status: 'error', exit_code: 1 }, 'error', 'error'],
    [{ status: 'denied' }, 'denied', 'denied'],
    [{ status: 'running' }, 'running', 'running'],
  ])('%o shows as %s "%s"', (e, kind, label) => {
    expect(callOutcome(e)).toEqual({ kind, label });
  });
});
