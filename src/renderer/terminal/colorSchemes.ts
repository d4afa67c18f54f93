// The terminal colour schemes people bring from other terminals, as data: each scheme's published 16 ANSI colours with
// its background, foreground, cursor and selection. The window's own light/dark theme is separate (theme.ts).
import type { ITheme } from '@xterm/xterm';
import { terminalThemes, type ColorScheme } from './theme.js';

export interface TerminalScheme {
  name: string;
  /** Light or dark surface: picks the find bar's match colours. */
  dark: boolean;
  background: string;
  foreground: string;
  cursor: string;
  selection: string;
  /** black, red, green, yellow, blue, magenta, cyan, white, then the same eight bright. */
  ansi: readonly string[];
}

/** Shared by both Solarized variants: the palette is one, only the surface differs. */
const solarizedAnsi = [
  '#073642',
  '#dc322f',
  '#859900',
  '#b58900',
  '#268bd2',
  '#d33682',
  '#2aa198',
  '#eee8d5',
  '#002b36',
  '#cb4b16',
  '#586e75',
  '#657b83',
  '#839496',
  '#6c71c4',
  '#93a1a1',
  '#fdf6e3',
];

/** GNOME Terminal's Tango palette, the same on its dark and light surfaces. */
const tangoAnsi = [
  '#2e3436',
  '#cc0000',
  '#4e9a06',
  '#c4a000',
  '#3465a4',
  '#75507b',
  '#06989a',
  '#d3d7cf',
  '#555753',
  '#ef2929',
  '#8ae234',
  '#fce94f',
  '#729fcf',
  '#ad7fa8',
  '#34e2e2',
  '#eeeeec',
];

// Where a scheme's own black is its background (One Dark, Monokai, Tomorrow Night), black is the scheme's next darkest
// shade instead, so text a program paints black stays readable.
export const terminalSchemes = {
  'solarized-dark': {
    name: 'Solarized Dark',
    dark: true,
    background: '#002b36',
    foreground: '#839496',
    cursor: '#93a1a1',
    selection: '#073642',
    ansi: solarizedAnsi,
  },
  'solarized-light': {
    name: 'Solarized Light',
    dark: false,
    background: '#fdf6e3',
    foreground: '#657b83',
    cursor: '#586e75',
    selection: '#eee8d5',
    ansi: solarizedAnsi,
  },
  dracula: {
    name: 'Dracula',
    dark: true,
    background: '#282a36',
    foreground: '#f8f8f2',
    cursor: '#f8f8f2',
    selection: '#44475a',
    ansi: [
      '#21222c',
      '#ff5555',
      '#50fa7b',
      '#f1fa8c',
      '#bd93f9',
      '#ff79c6',
      '#8be9fd',
      '#f8f8f2',
      '#6272a4',
      '#ff6e6e',
      '#69ff94',
      '#ffffa5',
      '#d6acff',
      '#ff92df',
      '#a4ffff',
      '#ffffff',
    ],
  },
  'one-dark': {
    name: 'One Dark',
    dark: true,
    background: '#282c34',
    foreground: '#abb2bf',
    cursor: '#528bff',
    selection: '#3e4451',
    ansi: [
      '#3f4451',
      '#e06c75',
      '#98c379',
      '#e5c07b',
      '#61afef',
      '#c678dd',
      '#56b6c2',
      '#abb2bf',
      '#5c6370',
      '#e06c75',
      '#98c379',
      '#e5c07b',
      '#61afef',
      '#c678dd',
      '#56b6c2',
      '#ffffff',
    ],
  },
  'gruvbox-dark': {
    name: 'Gruvbox Dark',
    dark: true,
    background: '#282828',
    foreground: '#ebdbb2',
    cursor: '#ebdbb2',
    selection: '#504945',
    ansi: [
      '#282828',
      '#cc241d',
      '#98971a',
      '#d79921',
      '#458588',
      '#b16286',
      '#689d6a',
      '#a89984',
      '#928374',
      '#fb4934',
      '#b8bb26',
      '#fabd2f',
      '#83a598',
      '#d3869b',
      '#8ec07c',
      '#ebdbb2',
    ],
  },
  nord: {
    name: 'Nord',
    dark: true,
    background: '#2e3440',
    foreground: '#d8dee9',
    cursor: '#d8dee9',
    selection: '#434c5e',
    ansi: [
      '#3b4252',
      '#bf616a',
      '#a3be8c',
      '#ebcb8b',
      '#81a1c1',
      '#b48ead',
      '#88c0d0',
      '#e5e9f0',
      '#4c566a',
      '#bf616a',
      '#a3be8c',
      '#ebcb8b',
      '#81a1c1',
      '#b48ead',
      '#8fbcbb',
      '#eceff4',
    ],
  },
  monokai: {
    name: 'Monokai',
    dark: true,
    background: '#272822',
    foreground: '#f8f8f2',
    cursor: '#f8f8f0',
    selection: '#49483e',
    ansi: [
      '#383830',
      '#f92672',
      '#a6e22e',
      '#f4bf75',
      '#66d9ef',
      '#ae81ff',
      '#a1efe4',
      '#f8f8f2',
      '#75715e',
      '#f92672',
      '#a6e22e',
      '#f4bf75',
      '#66d9ef',
      '#ae81ff',
      '#a1efe4',
      '#f9f8f5',
    ],
  },
  'tomorrow-night': {
    name: 'Tomorrow Night',
    dark: true,
    background: '#1d1f21',
    foreground: '#c5c8c6',
    cursor: '#c5c8c6',
    selection: '#373b41',
    ansi: [
      '#282a2e',
      '#cc6666',
      '#b5bd68',
      '#f0c674',
      '#81a2be',
      '#b294bb',
      '#8abeb7',
      '#c5c8c6',
      '#969896',
      '#d54e53',
      '#b9ca4a',
      '#e7c547',
      '#7aa6da',
      '#c397d8',
      '#70c0b1',
      '#ffffff',
    ],
  },
  'github-light': {
    name: 'GitHub Light',
    dark: false,
    background: '#ffffff',
    foreground: '#24292f',
    cursor: '#0969da',
    selection: '#b6e3ff',
    ansi: [
      '#24292f',
      '#cf222e',
      '#116329',
      '#4d2d00',
      '#0969da',
      '#8250df',
      '#1b7c83',
      '#6e7781',
      '#57606a',
      '#a40e26',
      '#1a7f37',
      '#633c01',
      '#218bff',
      '#a475f9',
      '#3192aa',
      '#8c959f',
    ],
  },
  'github-dark': {
    name: 'GitHub Dark',
    dark: true,
    background: '#0d1117',
    foreground: '#c9d1d9',
    cursor: '#58a6ff',
    selection: '#264f78',
    ansi: [
      '#484f58',
      '#ff7b72',
      '#3fb950',
      '#d29922',
      '#58a6ff',
      '#bc8cff',
      '#39c5cf',
      '#b1bac4',
      '#6e7681',
      '#ffa198',
      '#56d364',
      '#e3b341',
      '#79c0ff',
      '#d2a8ff',
      '#56d4dd',
      '#f0f6fc',
    ],
  },
  'tango-dark': {
    name: 'Tango Dark',
    dark: true,
    background: '#2e3436',
    foreground: '#d3d7cf',
    cursor: '#d3d7cf',
    selection: '#555753',
    ansi: tangoAnsi,
  },
  'tango-light': {
    name: 'Tango Light',
    dark: false,
    background: '#eeeeec',
    foreground: '#2e3436',
    cursor: '#2e3436',
    selection: '#babdb6',
    ansi: tangoAnsi,
  },
  'catppuccin-mocha': {
    name: 'Catppuccin Mocha',
    dark: true,
    background: '#1e1e2e',
    foreground: '#cdd6f4',
    cursor: '#f5e0dc',
    selection: '#585b70',
    ansi: [
      '#45475a',
      '#f38ba8',
      '#a6e3a1',
      '#f9e2af',
      '#89b4fa',
      '#f5c2e7',
      '#94e2d5',
      '#bac2de',
      '#585b70',
      '#f38ba8',
      '#a6e3a1',
      '#f9e2af',
      '#89b4fa',
      '#f5c2e7',
      '#94e2d5',
      '#a6adc8',
    ],
  },
} as const satisfies Record<string, TerminalScheme>;

export type TerminalSchemeId = keyof typeof terminalSchemes;

/** The setting's value for "no scheme": the terminal follows the window's light or dark theme. */
export const WINDOW_SCHEME = 'window';

export function isTerminalSchemeId(id: string): id is TerminalSchemeId {
  return Object.hasOwn(terminalSchemes, id);
}

/** xterm's names of the 16 ANSI colours, in palette order. */
export const ANSI_NAMES = [
  'black',
  'red',
  'green',
  'yellow',
  'blue',
  'magenta',
  'cyan',
  'white',
  'brightBlack',
  'brightRed',
  'brightGreen',
  'brightYellow',
  'brightBlue',
  'brightMagenta',
  'brightCyan',
  'brightWhite',
] as const satisfies ReadonlyArray<keyof ITheme>;

/** A scheme as xterm's `theme`; the cursor's text takes the background, as in the terminals the schemes come from. */
export function schemeTheme(s: TerminalScheme): ITheme {
  const theme: ITheme = {
    background: s.background,
    foreground: s.foreground,
    cursor: s.cursor,
    cursorAccent: s.background,
    selectionBackground: s.selection,
  };
  ANSI_NAMES.forEach((name, i) => {
    theme[name] = s.ansi[i];
  });
  return theme;
}

const themes = new Map<TerminalSchemeId, ITheme>();

/**
 * What a terminal draws with: the chosen scheme, or (`window`, or an id no longer known) the palette of the window's
 * light or dark theme. The same object each time for a scheme, so a terminal is only redrawn when the colours change.
 */
export function terminalColors(schemeId: string, windowScheme: ColorScheme): { theme: ITheme; dark: boolean } {
  if (!isTerminalSchemeId(schemeId)) return { theme: terminalThemes[windowScheme], dark: windowScheme !== 'light' };
  const scheme: TerminalScheme = terminalSchemes[schemeId];
  let theme = themes.get(schemeId);
  if (!theme) themes.set(schemeId, (theme = schemeTheme(scheme)));
  return { theme, dark: scheme.dark };
}
