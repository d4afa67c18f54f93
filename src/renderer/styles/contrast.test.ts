// The themes' colour variables (app.css) meet WCAG's contrast minimums in every pairing the window draws: text 4.5:1,
// control edges and the focus ring 3:1, in the dark, light and high-contrast themes. axe checks what one run shows;
// this checks every pairing, shown or not.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(join(import.meta.dirname, 'app.css'), 'utf8');

/** The `--name: value` declarations of the first block that opens with `selector {`. */
function block(selector: string): Record<string, string> {
  const start = css.indexOf(`${selector} {`);
  if (start < 0) throw new Error(`no ${selector} block in app.css`);
  const body = css.slice(start, css.indexOf('\n}', start));
  return Object.fromEntries([...body.matchAll(/--([\w-]+):\s*([^;]+);/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

const dark = block(':root');
const themes: Record<string, Record<string, string>> = {
  dark,
  light: { ...dark, ...block(":root[data-theme='light']") },
  'high-contrast': { ...dark, ...block(":root[data-theme='high-contrast']") },
};

type Rgba = [number, number, number, number];

function parse(value: string): Rgba {
  const hex = /^#([0-9a-f]{6})$/i.exec(value);
  if (hex) return [0, 2, 4].map((i) => Number.parseInt(hex[1]!.slice(i, i + 2), 16)).concat(1) as Rgba;
  const rgba = /^rgba?\(([^)]+)\)$/.exec(value);
  if (rgba) {
    const [r, g, b, a = 1] = rgba[1]!.split(',').map(Number);
    return [r!, g!, b!, a];
  }
  throw new Error(`not a colour: ${value}`);
}

/** A colour laid over an opaque one. */
function over([r, g, b, a]: Rgba, [br, bg, bb]: Rgba): Rgba {
  return [r * a + br * (1 - a), g * a + bg * (1 - a), b * a + bb * (1 - a), 1];
}

function luminance([r, g, b]: Rgba): number {
  const lin = (c: number): number => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

function ratio(a: Rgba, b: Rgba): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** `fg` on a stack of backgrounds, the last one opaque (a tint over a surface). */
function contrast(vars: Record<string, string>, fg: string, ...stack: string[]): number {
  const colour = (name: string): Rgba => parse(vars[name] ?? name);
  const layers = stack.map(colour).reverse();
  const bg = layers.slice(1).reduce((under, layer) => over(layer, under), layers[0]!);
  return ratio(over(colour(fg), bg), bg);
}

const surfaces = ['bg-term', 'bg-0', 'bg-1', 'bg-2', 'bg-3', 'bg-hover'];
/** [foreground, background stack (top first), minimum, what it is]. */
const pairs: Array<[string, string[], number, string]> = [
  ...['text-0', 'text-1', 'text-2'].flatMap((t) =>
    surfaces.map((s): [string, string[], number, string] => [t, [s], 4.5, 'text']),
  ),
  ['text-2', ['accent-dim', 'bg-1'], 4.5, 'a dim column in a selected row'],
  ...['accent', 'ok', 'warn', 'err', 'info', 'purple'].flatMap((c) =>
    ['bg-1', 'bg-2', 'bg-hover'].map((s): [string, string[], number, string] => [c, [`${c}-dim`, s], 4.5, 'a badge']),
  ),
  ['accent', ['accent-dim', 'accent-dim', 'bg-1'], 4.5, 'a running badge in a selected row'],
  ['err', ['err-dim', 'accent-dim', 'bg-1'], 4.5, 'Kill in a selected row'],
  ['err', ['err-dim', 'bg-2'], 4.5, 'Deny'],
  ['err-strong', ['err-hover', 'bg-2'], 4.5, 'Deny under the pointer'],
  ['flag-text', ['flag-bg', 'bg-term'], 4.5, 'the flagged part of a command'],
  ['text-0', ['bg-term'], 4.5, 'the rest of the command'],
  ['reason-text', ['bg-2'], 4.5, 'why it asks'],
  ['fingerprint', ['bg-0'], 4.5, 'a host key fingerprint'],
  ['accent', ['bg-2'], 4.5, 'a link button in a dialog'],
  ['primary-text', ['primary-bg'], 4.5, 'a primary button'],
  ['primary-text', ['primary-hover'], 4.5, 'a primary button under the pointer'],
  ['text-0', ['button-hover'], 4.5, 'a button under the pointer'],
  ['bg-0', ['warn'], 4.5, 'the count of waiting approvals'],
  ['text-0', ['toast-bg'], 4.5, 'a toast'],
  ...['bg-0', 'bg-1', 'bg-2', 'bg-3'].map((s): [string, string[], number, string] => [
    'control-border',
    [s],
    3,
    'a control edge',
  ]),
  ...['bg-0', 'bg-1', 'bg-2', 'bg-term'].map((s): [string, string[], number, string] => [
    'focus',
    [s],
    3,
    'the focus ring',
  ]),
];

describe.each(Object.entries(themes))('the %s theme', (_, vars) => {
  it.each(pairs)('%s on %j: at least %d:1 (%s)', (fg, stack, min) => {
    expect(contrast(vars, fg, ...stack)).toBeGreaterThanOrEqual(min);
  });
});
