// The terminal's look: one monospace stack, and a dark, a light and a high-contrast ANSI palette matched to the app's
// surfaces.
import type { ITerminalOptions, ITheme } from '@xterm/xterm';

export const MONO_FONT =
  "'JetBrains Mono', 'Cascadia Code', 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace";

export type ColorScheme = 'dark' | 'light' | 'high-contrast';

export const terminalThemes: Record<ColorScheme, ITheme> = {
  dark: {
    background: '#0c0e12',
    foreground: '#d5dae3',
    cursor: '#6ea8ff',
    cursorAccent: '#0c0e12',
    selectionBackground: 'rgba(110, 168, 255, 0.28)',
    black: '#1b1f27',
    red: '#f0616d',
    green: '#7bd88f',
    yellow: '#e5c07b',
    blue: '#6ea8ff',
    magenta: '#c792ea',
    cyan: '#56c8d8',
    white: '#c8cdd6',
    brightBlack: '#7d8696',
    brightRed: '#ff7b86',
    brightGreen: '#98e6a8',
    brightYellow: '#f2d39a',
    brightBlue: '#94bfff',
    brightMagenta: '#dcb0f5',
    brightCyan: '#7ddbe8',
    brightWhite: '#f2f4f8',
  },
  light: {
    background: '#fbfbfc',
    foreground: '#1f2328',
    cursor: '#1f6feb',
    cursorAccent: '#fbfbfc',
    selectionBackground: 'rgba(31, 111, 235, 0.22)',
    black: '#24292f',
    red: '#cf222e',
    green: '#116329',
    yellow: '#7d4e00',
    blue: '#0550ae',
    magenta: '#8250df',
    cyan: '#1b7c83',
    white: '#6e7781',
    brightBlack: '#57606a',
    brightRed: '#a40e26',
    brightGreen: '#1a7f37',
    brightYellow: '#633c01',
    brightBlue: '#218bff',
    brightMagenta: '#a475f9',
    brightCyan: '#3192aa',
    brightWhite: '#8c959f',
  },
  // Every colour at least 7:1 on black but blue and black (4.5:1 and up), as Windows' and VS Code's contrast themes.
  'high-contrast': {
    background: '#000000',
    foreground: '#ffffff',
    cursor: '#ffd400',
    cursorAccent: '#000000',
    selectionBackground: 'rgba(255, 212, 0, 0.45)',
    selectionForeground: '#000000',
    black: '#7f7f7f',
    red: '#ff8080',
    green: '#4dff88',
    yellow: '#ffe066',
    blue: '#8cb4ff',
    magenta: '#ff99ff',
    cyan: '#66ffff',
    white: '#ffffff',
    brightBlack: '#a6a6a6',
    brightRed: '#ffb3b3',
    brightGreen: '#99ffbb',
    brightYellow: '#fff0a8',
    brightBlue: '#b8d0ff',
    brightMagenta: '#ffc2ff',
    brightCyan: '#b3ffff',
    brightWhite: '#ffffff',
  },
};

export const terminalOptions: ITerminalOptions = {
  fontFamily: MONO_FONT,
  fontSize: 13,
  lineHeight: 1.15,
  letterSpacing: 0,
  cursorBlink: true,
  cursorStyle: 'bar',
  cursorWidth: 2,
  scrollback: 5000,
  allowTransparency: false,
  // Text too close to its background in a program's colours is lifted to 4.5:1, as VS Code's terminal does (the
  // person's setting, minimumContrast, replaces it once settings apply).
  minimumContrastRatio: 4.5,
  drawBoldTextInBrightColors: true,
  macOptionIsMeta: true,
  rightClickSelectsWord: true,
  // unicode11 and the search addon's match decorations use proposed API.
  allowProposedApi: true,
  theme: terminalThemes.dark,
};
