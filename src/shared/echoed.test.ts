import { describe, expect, it } from 'vitest';
import { MAX_ECHOED_CHARS, cutLongRuns, echoed } from './echoed.js';
import { SwitchboardError, toErrorPayload } from './errors.js';

const long = 'a'.repeat(2000) + 'THE-END';

describe('echoed', () => {
  it.each([
    ['short', 'short'],
    ['x'.repeat(MAX_ECHOED_CHARS), 'x'.repeat(MAX_ECHOED_CHARS)],
  ])('%s stays whole', (input, want) => expect(echoed(input)).toBe(want));

  it('a long name keeps its start and its end, MAX_ECHOED_CHARS in all', () => {
    const cut = echoed(long);
    expect(cut).toHaveLength(MAX_ECHOED_CHARS);
    expect(cut.startsWith('aaaa')).toBe(true);
    expect(cut.endsWith('THE-END')).toBe(true);
    expect(cut).toContain('…');
  });

  it('cutLongRuns cuts each long run of a message and leaves the words around it', () => {
    const cut = cutLongRuns(`no such file: /srv/${long} (and "${long}" too) — check it`);
    expect(cut).toMatch(/^no such file: \/srv\/a+…a*THE-END \(and "a+…a*THE-END" too\) — check it$/);
    expect(cut.length).toBeLessThan(2 * MAX_ECHOED_CHARS + 50);
  });

  it('every SwitchboardError and every error payload is cut, message and hint', () => {
    const e = new SwitchboardError('unknown_target', `unknown target "${long}"`, `try "${long}"`);
    expect(e.message.length).toBeLessThanOrEqual(MAX_ECHOED_CHARS + 20);
    expect(e.hint!.length).toBeLessThanOrEqual(MAX_ECHOED_CHARS + 10);
    expect(toErrorPayload(new Error(`ENOENT: open '${long}'`)).message.length).toBeLessThanOrEqual(
      MAX_ECHOED_CHARS + 20,
    );
  });
});
