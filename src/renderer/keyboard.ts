// The window's commands and their keys, declared once: the palette, tooltips, the status bar and xterm's key hook all read this table.
export const commands = {
  palette: { title: 'Show all commands', keys: ['Ctrl+Shift+P'] },
  newTab: { title: 'New tab', keys: ['Ctrl+Shift+T'] },
  splitRight: { title: 'Split right', keys: ['Ctrl+Shift+D'] },
  splitDown: { title: 'Split down', keys: ['Ctrl+Shift+O'] },
  closePane: { title: 'Close pane', keys: ['Ctrl+Shift+W'] },
  zoomPane: { title: 'Zoom pane / restore', keys: ['Ctrl+Shift+Z'] },
  focusLeft: { title: 'Focus pane to the left', keys: ['Alt+Left', 'Ctrl+Shift+Left'] },
  focusRight: { title: 'Focus pane to the right', keys: ['Alt+Right', 'Ctrl+Shift+Right'] },
  focusUp: { title: 'Focus pane above', keys: ['Alt+Up', 'Ctrl+Shift+Up'] },
  focusDown: { title: 'Focus pane below', keys: ['Alt+Down', 'Ctrl+Shift+Down'] },
  find: { title: 'Find in terminal', keys: ['Ctrl+Shift+F'] },
  copy: { title: 'Copy', keys: ['Ctrl+Shift+C'] },
  paste: { title: 'Paste', keys: ['Ctrl+Shift+V'] },
  clear: { title: 'Clear terminal', keys: [] },
  fontBigger: { title: 'Zoom in (bigger font)', keys: ['Ctrl+=', 'Ctrl+Shift+=', 'Ctrl++'] },
  fontSmaller: { title: 'Zoom out (smaller font)', keys: ['Ctrl+-'] },
  fontReset: { title: 'Reset zoom', keys: ['Ctrl+0'] },
  nextTab: { title: 'Next tab', keys: ['Ctrl+Tab', 'Ctrl+PageDown'] },
  prevTab: { title: 'Previous tab', keys: ['Ctrl+Shift+Tab', 'Ctrl+PageUp'] },
  renameTab: { title: 'Rename tab', keys: [] },
  closeTab: { title: 'Close tab', keys: [] },
  tab1: { title: 'Go to tab 1', keys: ['Ctrl+1'] },
  tab2: { title: 'Go to tab 2', keys: ['Ctrl+2'] },
  tab3: { title: 'Go to tab 3', keys: ['Ctrl+3'] },
  tab4: { title: 'Go to tab 4', keys: ['Ctrl+4'] },
  tab5: { title: 'Go to tab 5', keys: ['Ctrl+5'] },
  tab6: { title: 'Go to tab 6', keys: ['Ctrl+6'] },
  tab7: { title: 'Go to tab 7', keys: ['Ctrl+7'] },
  tab8: { title: 'Go to tab 8', keys: ['Ctrl+8'] },
  tab9: { title: 'Go to last tab', keys: ['Ctrl+9'] },
  nextRegion: { title: 'Focus next region (sidebar, panes, Processes, Activity)', keys: ['F6'] },
  prevRegion: { title: 'Focus previous region', keys: ['Shift+F6'] },
  // Plain Ctrl+B belongs to the shell (readline, tmux) while a terminal has the keyboard.
  toggleSidebar: { title: 'Toggle sidebar', keys: ['Ctrl+Shift+B'], keysOutsideTerminal: ['Ctrl+B'] },
  settings: { title: 'Settings', keys: ['Ctrl+,'] },
  addTarget: { title: 'Add target', keys: [] },
  approvalRules: { title: 'Approval rules (always allow)', keys: [] },
  plugins: { title: 'Plugins…', keys: [] },
} satisfies Record<string, { title: string; keys: string[]; keysOutsideTerminal?: string[] }>;

export type CommandId = keyof typeof commands;

/** The first key of a command, as tooltips and the palette show it. */
export function shortcutOf(id: CommandId): string | undefined {
  const c: { keys: string[]; keysOutsideTerminal?: string[] } = commands[id];
  return c.keys[0] ?? c.keysOutsideTerminal?.[0];
}

const keyNames: Record<string, string> = {
  Equal: '=', Minus: '-', NumpadAdd: '+', NumpadSubtract: '-', Comma: ',', Period: '.', Slash: '/',
  ArrowLeft: 'Left', ArrowRight: 'Right', ArrowUp: 'Up', ArrowDown: 'Down',
};

type KeyLike = Pick<KeyboardEvent, 'ctrlKey' | 'altKey' | 'shiftKey' | 'metaKey' | 'code' | 'key'>;

/** A key press as written in the table: modifiers in a fixed order, then the key by its position (`code`). */
export function chordOf(e: KeyLike): string {
  const code = e.code || '';
  const key = /^Key[A-Z]$/.test(code) ? code.slice(3)
    : /^(Digit|Numpad)\d$/.test(code) ? code.slice(-1)
      : keyNames[code] ?? (code || (e.key.length === 1 ? e.key.toUpperCase() : e.key));
  return [e.ctrlKey && 'Ctrl', e.altKey && 'Alt', e.shiftKey && 'Shift', e.metaKey && 'Meta', key].filter(Boolean).join('+');
}

const byChord = new Map<string, CommandId>();
const byChordOutside = new Map<string, CommandId>();
for (const [id, c] of Object.entries(commands) as Array<[CommandId, { keys: string[]; keysOutsideTerminal?: string[] }]>) {
  for (const k of c.keys) byChord.set(k, id);
  for (const k of c.keysOutsideTerminal ?? []) byChordOutside.set(k, id);
}

/** The command a key press runs, if any; `inTerminal` when a terminal has the keyboard. */
export function actionForKey(e: KeyLike, inTerminal: boolean): CommandId | undefined {
  const chord = chordOf(e);
  return byChord.get(chord) ?? (inTerminal ? undefined : byChordOutside.get(chord));
}
