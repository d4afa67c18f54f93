// A colour drawn as xterm's minimumContrastRatio draws it: moved toward black on a light background (toward white on
// a dark one) until it reaches the ratio against that background, so a preview shows what the terminal will show.

type Rgb = [number, number, number];

function parse(hex: string): Rgb | undefined {
  const m = /^#([0-9a-f]{6})/i.exec(hex);
  if (!m) return undefined;
  const n = Number.parseInt(m[1]!, 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/** WCAG relative luminance. */
function luminance([r, g, b]: Rgb): number {
  const lin = (c: number): number => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [x, y] = [parse(a), parse(b)];
  if (!x || !y) return 21;
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** `fg` as drawn on `bg` with at least `ratio` contrast (unchanged when it has it, or a colour is not #rrggbb). */
export function liftContrast(fg: string, bg: string, ratio: number): string {
  const [f, b] = [parse(fg), parse(bg)];
  if (!f || !b || contrastRatio(fg, bg) >= ratio) return fg;
  const toward = luminance(b) > 0.5 ? 0 : 255;
  let out = fg;
  // Ten percent of the way at a time, as xterm steps; the last step is black or white, which always suffices for 4.5.
  for (let step = 1; step <= 10; step++) {
    const mix = f.map((c) => Math.round(c + ((toward - c) * step) / 10));
    out = `#${mix.map((c) => c.toString(16).padStart(2, '0')).join('')}`;
    if (contrastRatio(out, bg) >= ratio) break;
  }
  return out;
}
