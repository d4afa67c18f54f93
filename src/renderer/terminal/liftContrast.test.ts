import { describe, expect, it } from 'vitest';
import { contrastRatio, liftContrast } from './liftContrast.js';

describe('liftContrast', () => {
  it.each([
    // Solarized Light's green, blue and base00 on its base3: darkened to the ratio, never past what it needs.
    ['#859900', '#fdf6e3', 4.5],
    ['#268bd2', '#fdf6e3', 4.5],
    ['#657b83', '#fdf6e3', 4.5],
    ['#657b83', '#fdf6e3', 7],
    // A dark background lifts toward white.
    ['#44475a', '#282a36', 4.5],
  ])('%s on %s reaches %d:1', (fg, bg, ratio) => {
    const out = liftContrast(fg, bg, ratio);
    expect(out).not.toBe(fg);
    expect(contrastRatio(out, bg)).toBeGreaterThanOrEqual(ratio);
  });

  it('leaves a colour that has the contrast, a ratio of 1, and what it cannot read', () => {
    expect(liftContrast('#ff5555', '#282a36', 4.5)).toBe('#ff5555');
    expect(liftContrast('#859900', '#fdf6e3', 1)).toBe('#859900');
    expect(liftContrast('red', '#fdf6e3', 4.5)).toBe('red');
  });
});
