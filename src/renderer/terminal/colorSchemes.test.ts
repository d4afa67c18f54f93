import { describe, expect, it } from 'vitest';
import {
  isTerminalSchemeId,
  schemeTheme,
  terminalSchemes,
  WINDOW_SCHEME,
  type TerminalScheme,
} from './colorSchemes.js';

const HEX = /^#[0-9a-f]{6}$/;

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const schemes = Object.entries(terminalSchemes) as Array<[string, TerminalScheme]>;

describe('terminal colour schemes', () => {
  it('offers at least a dozen, each under a name of its own', () => {
    expect(schemes.length).toBeGreaterThanOrEqual(12);
    expect(new Set(schemes.map(([, s]) => s.name)).size).toBe(schemes.length);
    expect(isTerminalSchemeId(WINDOW_SCHEME)).toBe(false);
  });

  it.each(schemes)('%s has 16 ANSI colours and its surface colours, all #rrggbb', (_id, s) => {
    expect(s.ansi).toHaveLength(16);
    for (const c of [...s.ansi, s.background, s.foreground, s.cursor, s.selection]) expect(c).toMatch(HEX);
  });

  it.each(schemes)('%s: text is readable on its background and "dark" says which surface it has', (_id, s) => {
    // Solarized's published body text sits a little under WCAG's 4.5 (Solarized Light: 4.1).
    expect(contrast(s.foreground, s.background)).toBeGreaterThanOrEqual(4);
    expect(s.dark).toBe(luminance(s.background) < 0.2);
    // Red and green, the colours of errors and passes, stand off the background.
    expect(contrast(s.ansi[1]!, s.background)).toBeGreaterThanOrEqual(2);
    expect(contrast(s.ansi[2]!, s.background)).toBeGreaterThanOrEqual(2);
  });

  it('maps a scheme onto every colour of xterm’s theme', () => {
    const t = schemeTheme(terminalSchemes.dracula);
    expect(t).toMatchObject({ background: '#282a36', red: '#ff5555', brightWhite: '#ffffff', cursorAccent: '#282a36' });
    expect(Object.values(t).filter((v) => typeof v === 'string')).toHaveLength(21);
  });

  it('knows its ids and nothing else', () => {
    expect(isTerminalSchemeId('nord')).toBe(true);
    expect(isTerminalSchemeId('toString')).toBe(false);
    expect(isTerminalSchemeId('Nord')).toBe(false);
  });
});
