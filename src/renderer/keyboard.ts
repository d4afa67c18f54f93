// The window's commands and their keys, declared once: the palette, tooltips, the status bar and xterm's key hook all
// read this table. In a browser (`serve`), some keys never reach a page (Ctrl+T/W/N, Ctrl+Tab, Ctrl+1…9 are the
// browser's): those commands have `browserKeys` a browser leaves alone, shown first there. A person's own keys
// (Settings → Keys, kept in the profile) replace a command's defaults.
export const commands = {
  palette: { title: 'Show all commands', keys: ['Ctrl+Shift+P'] },
  newTab: { title: 'New tab', keys: ['Ctrl+Shift+T'], browserKeys: ['Alt+Shift+T'] },
  splitRight: { title: 'Split right', keys: ['Ctrl+Shift+D'] },
  splitDown: { title: 'Split down', keys: ['Ctrl+Shift+O'] },
  closePane: { title: 'Close pane', keys: ['Ctrl+Shift+W'], browserKeys: ['Alt+Shift+W'] },
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
  nextTab: { title: 'Next tab', keys: ['Ctrl+Tab', 'Ctrl+PageDown'], browserKeys: ['Alt+Shift+]'] },
  prevTab: { title: 'Previous tab', keys: ['Ctrl+Shift+Tab', 'Ctrl+PageUp'], browserKeys: ['Alt+Shift+['] },
  renameTab: { title: 'Rename tab', keys: [] },
  duplicateTab: { title: 'Duplicate tab', keys: [] },
  closeTab: { title: 'Close tab', keys: [] },
  tab1: { title: 'Go to tab 1', keys: ['Ctrl+1'], browserKeys: ['Alt+Shift+1'] },
  tab2: { title: 'Go to tab 2', keys: ['Ctrl+2'], browserKeys: ['Alt+Shift+2'] },
  tab3: { title: 'Go to tab 3', keys: ['Ctrl+3'], browserKeys: ['Alt+Shift+3'] },
  tab4: { title: 'Go to tab 4', keys: ['Ctrl+4'], browserKeys: ['Alt+Shift+4'] },
  tab5: { title: 'Go to tab 5', keys: ['Ctrl+5'], browserKeys: ['Alt+Shift+5'] },
  tab6: { title: 'Go to tab 6', keys: ['Ctrl+6'], browserKeys: ['Alt+Shift+6'] },
  tab7: { title: 'Go to tab 7', keys: ['Ctrl+7'], browserKeys: ['Alt+Shift+7'] },
  tab8: { title: 'Go to tab 8', keys: ['Ctrl+8'], browserKeys: ['Alt+Shift+8'] },
  tab9: { title: 'Go to last tab', keys: ['Ctrl+9'], browserKeys: ['Alt+Shift+9'] },
  nextRegion: { title: 'Focus next region (sidebar, panes, Processes, Activity)', keys: ['F6'] },
  prevRegion: { title: 'Focus previous region', keys: ['Shift+F6'] },
  // Plain Ctrl+B belongs to the shell (readline, tmux) while a terminal has the keyboard.
  toggleSidebar: { title: 'Toggle sidebar', keys: ['Ctrl+Shift+B'], keysOutsideTerminal: ['Ctrl+B'] },
  settings: { title: 'Settings', keys: ['Ctrl+,'] },
  addTarget: { title: 'Add target', keys: [] },
  approvalRules: { title: 'Approval rules (always allow)', keys: [] },
  plugins: { title: 'Plugins…', keys: [] },
  keyboardShortcuts: { title: 'Keyboard shortcuts', keys: [] },
  broadcastTab: { title: 'Broadcast input to… all panes in this tab', keys: [] },
  broadcastPane: {
    title: 'Broadcast input to… selected panes: add or remove this one (Ctrl+click a header)',
    keys: [],
  },
  broadcastStop: { title: 'Stop broadcasting input', keys: [] },
} satisfies Record<string, CommandKeys>;

interface CommandKeys {
  title: string;
  keys: string[];
  keysOutsideTerminal?: string[];
  browserKeys?: string[];
}

export type CommandId = keyof typeof commands;

/** Where the window runs: Electron gets every key; a browser keeps some for itself. */
export type KeyHost = 'electron' | 'browser';

/** Keys Chrome and Firefox keep for themselves: a page never sees them (new/close window and tab, tab switching). */
export const browserReserved: ReadonlySet<string> = new Set([
  'Ctrl+T',
  'Ctrl+Shift+T',
  'Ctrl+W',
  'Ctrl+Shift+W',
  'Ctrl+N',
  'Ctrl+Shift+N',
  'Ctrl+Tab',
  'Ctrl+Shift+Tab',
  'Ctrl+PageUp',
  'Ctrl+PageDown',
  'Ctrl+Shift+Q',
  ...Array.from({ length: 9 }, (_, i) => `Ctrl+${i + 1}`),
]);

let host: KeyHost = 'electron';
/** A person's own keys by command (an empty list: none); the others keep their defaults. */
let overrides: Partial<Record<CommandId, readonly string[]>> = {};

const spec = (id: CommandId): CommandKeys => commands[id];

/** A command's keys as shipped, for a host: in a browser the ones it leaves to the page come first. */
export function defaultKeys(id: CommandId, on: KeyHost = host): string[] {
  const c = spec(id);
  if (on === 'electron') return [...c.keys];
  // The browser's own keys stay bound last: a browser that lets them through (an app window) still runs them.
  return [
    ...(c.browserKeys ?? []),
    ...c.keys.filter((k) => !browserReserved.has(k)),
    ...c.keys.filter((k) => browserReserved.has(k)),
  ];
}

/** A command's keys now: the person's own, or the defaults for this host. */
export function keysOf(id: CommandId): readonly string[] {
  return overrides[id] ?? defaultKeys(id);
}

/** Whether the person changed this command's keys. */
export function isOverridden(id: CommandId): boolean {
  return overrides[id] !== undefined;
}

/** The first key of a command, as tooltips and the palette show it. */
export function shortcutOf(id: CommandId): string | undefined {
  return keysOf(id)[0] ?? (overrides[id] ? undefined : spec(id).keysOutsideTerminal?.[0]);
}

export function setKeyHost(on: KeyHost): void {
  host = on;
  rebuild();
}

export function setKeyOverrides(next: Partial<Record<CommandId, readonly string[]>>): void {
  overrides = next;
  rebuild();
}

/** A chord as the table writes it (`Ctrl+Shift+T`, `Alt+]`, `F6`): modifiers in order, then one key. */
export const chordPattern = new RegExp(
  String.raw`^(Ctrl\+)?(Alt\+)?(Shift\+)?(Meta\+)?([A-Z0-9]|F([1-9]|1[0-9]|2[0-4])|` +
    /[=\-+,./;'`[\]\\]/.source +
    '|Left|Right|Up|Down|Home|End|PageUp|PageDown|Insert|Delete|Tab|Enter|Space|Backspace|Escape)$',
);

/** The overrides a saved setting holds, each command and chord checked; anything else is dropped. */
export function parseKeyOverrides(text: string): Partial<Record<CommandId, string[]>> {
  let raw: unknown;
  try {
    raw = text ? JSON.parse(text) : {};
  } catch {
    // a damaged setting: the defaults
    return {};
  }
  const out: Partial<Record<CommandId, string[]>> = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [id, keys] of Object.entries(raw as Record<string, unknown>)) {
    if (!(id in commands) || !Array.isArray(keys)) continue;
    out[id as CommandId] = keys.filter((k): k is string => typeof k === 'string' && chordPattern.test(k)).slice(0, 4);
  }
  return out;
}

/** The overrides with `chord` given to `id` alone: a command that had it loses it (named, for the person to see). */
export function assignChord(
  current: Partial<Record<CommandId, readonly string[]>>,
  id: CommandId,
  chord: string,
): { next: Partial<Record<CommandId, string[]>>; takenFrom?: CommandId } {
  const next: Partial<Record<CommandId, string[]>> = {};
  for (const [k, v] of Object.entries(current) as Array<[CommandId, readonly string[]]>) next[k] = [...v];
  let takenFrom: CommandId | undefined;
  for (const other of Object.keys(commands) as CommandId[]) {
    if (other === id) continue;
    const keys = next[other] ?? defaultKeys(other);
    if (keys.includes(chord)) {
      next[other] = keys.filter((k) => k !== chord);
      takenFrom = other;
    }
  }
  next[id] = [chord];
  return { next, ...(takenFrom ? { takenFrom } : {}) };
}

const keyNames: Record<string, string> = {
  Equal: '=',
  Minus: '-',
  NumpadAdd: '+',
  NumpadSubtract: '-',
  Comma: ',',
  Period: '.',
  Slash: '/',
  ArrowLeft: 'Left',
  ArrowRight: 'Right',
  ArrowUp: 'Up',
  ArrowDown: 'Down',
  BracketLeft: '[',
  BracketRight: ']',
  Semicolon: ';',
  Quote: "'",
  Backquote: '`',
  Backslash: '\\',
};

type KeyLike = Pick<KeyboardEvent, 'ctrlKey' | 'altKey' | 'shiftKey' | 'metaKey' | 'code' | 'key'>;

/** A key press as written in the table: modifiers in a fixed order, then the key by its position (`code`). */
export function chordOf(e: KeyLike): string {
  const code = e.code || '';
  const key = /^Key[A-Z]$/.test(code)
    ? code.slice(3)
    : /^(Digit|Numpad)\d$/.test(code)
      ? code.slice(-1)
      : (keyNames[code] ?? (code || (e.key.length === 1 ? e.key.toUpperCase() : e.key)));
  return [e.ctrlKey && 'Ctrl', e.altKey && 'Alt', e.shiftKey && 'Shift', e.metaKey && 'Meta', key]
    .filter(Boolean)
    .join('+');
}

const byChord = new Map<string, CommandId>();
const byChordOutside = new Map<string, CommandId>();
function rebuild(): void {
  byChord.clear();
  byChordOutside.clear();
  for (const id of Object.keys(commands) as CommandId[]) {
    for (const k of keysOf(id)) byChord.set(k, id);
    if (!overrides[id]) for (const k of spec(id).keysOutsideTerminal ?? []) byChordOutside.set(k, id);
  }
}
rebuild();

/** The command a key press runs, if any; `inTerminal` when a terminal has the keyboard. */
export function actionForKey(e: KeyLike, inTerminal: boolean): CommandId | undefined {
  const chord = chordOf(e);
  return byChord.get(chord) ?? (inTerminal ? undefined : byChordOutside.get(chord));
}
