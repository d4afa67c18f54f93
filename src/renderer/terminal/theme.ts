// The terminal's look: one monospace stack and an ANSI palette tuned to the app's dark surfaces.
import type { ITerminalOptions } from '@xterm/xterm';

export const MONO_FONT = "'JetBrains Mono', 'Cascadia Code', 'SF Mono', Menlo, Consolas, 'DejaVu Sans Mono', 'Liberation Mono', monospace";

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
  drawBoldTextInBrightColors: true,
  macOptionIsMeta: true,
  rightClickSelectsWord: true,
  theme: {
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
    brightBlack: '#5c6573',
    brightRed: '#ff7b86',
    brightGreen: '#98e6a8',
    brightYellow: '#f2d39a',
    brightBlue: '#94bfff',
    brightMagenta: '#dcb0f5',
    brightCyan: '#7ddbe8',
    brightWhite: '#f2f4f8',
  },
};
