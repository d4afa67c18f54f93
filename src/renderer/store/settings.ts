// The person's terminal settings (font, zoom, scrollback, theme, colours, cursor, copy-on-select, renderer), kept in
// the profile by the Core (settings.get / settings.save), so every window and browser on this profile shares them.
import { z, config as zodConfig } from 'zod';
import { create } from 'zustand';
import { MONO_FONT } from '../terminal/theme.js';
import { isTerminalSchemeId, WINDOW_SCHEME } from '../terminal/colorSchemes.js';
import { parseKeyOverrides, setKeyOverrides } from '../keyboard.js';

// Parsed at import, maybe before the client module has set this: the page's CSP has no 'unsafe-eval'.
zodConfig({ jitless: true });

export const FONT_SIZE = { min: 8, max: 32, default: 13 } as const;
export const SCROLLBACK = { min: 100, max: 100_000, default: 5000 } as const;

const SettingsSchema = z.object({
  fontFamily: z.string().min(1).max(300).catch(MONO_FONT),
  fontSize: z.number().int().min(FONT_SIZE.min).max(FONT_SIZE.max).catch(FONT_SIZE.default),
  /** Ctrl+= / Ctrl+- add to the font size in every terminal; Ctrl+0 sets it back to 0. */
  zoom: z.number().int().min(-8).max(16).catch(0),
  scrollback: z.number().int().min(SCROLLBACK.min).max(SCROLLBACK.max).catch(SCROLLBACK.default),
  /** `system` follows prefers-color-scheme, and prefers-contrast: more picks high contrast. */
  theme: z.enum(['system', 'dark', 'light', 'high-contrast']).catch('system'),
  /** The terminals' colours: a scheme of colorSchemes.ts, or `window` to follow the window's light or dark theme. */
  terminalScheme: z
    .string()
    .refine((id) => id === WINDOW_SCHEME || isTerminalSchemeId(id))
    .catch(WINDOW_SCHEME),
  /**
   * xterm's minimumContrastRatio: text closer than this to its background is lifted (VS Code's default is 4.5, WCAG
   * AA); 1 draws a scheme's palette exactly as written (Solarized's red is 3.9:1 on its own background).
   */
  minimumContrast: z.union([z.literal(1), z.literal(4.5), z.literal(7)]).catch(4.5),
  cursorStyle: z.enum(['block', 'bar', 'underline']).catch('bar'),
  cursorBlink: z.boolean().catch(true),
  copyOnSelect: z.boolean().catch(false),
  /** Ctrl+V pastes instead of sending ^V (the Windows convention); Ctrl+Shift+V always pastes. */
  ctrlVPastes: z.boolean().catch(isWindows()),
  /**
   * `auto` uses WebGL only on a hardware GPU: a software rasterizer (SwiftShader, llvmpipe) is slower than the DOM
   * renderer.
   */
  gpu: z.enum(['auto', 'on', 'off']).catch('auto'),
  /** The person's own keyboard shortcuts, JSON by command (Settings → Keys); '' keeps every default. */
  keys: z.string().max(4000).catch(''),
  /** One line per target in the sidebar (name, state, backend): a fleet fits on a screen. */
  compactTargets: z.boolean().catch(false),
  /** xterm's screen reader mode: an accessibility tree of the rows and a live region that reads new output. */
  screenReaderMode: z.boolean().catch(false),
});
export type Settings = z.infer<typeof SettingsSchema>;

/** Where settings lived before the profile kept them: read once, moved to the profile, removed. */
const LEGACY_KEY = 'switchboard.settings';
const SAVE_DELAY_MS = 200;

function isWindows(): boolean {
  return typeof navigator !== 'undefined' && /^Win/i.test(navigator.platform);
}

/** Saved settings, each field checked on its own: one bad value falls back alone. */
export function parseSettings(raw: unknown): Settings {
  return SettingsSchema.parse(typeof raw === 'object' && raw !== null ? raw : {});
}

interface SettingsState extends Settings {
  /** True once the profile's settings arrived (or it had none). */
  loaded: boolean;
  update(patch: Partial<Settings>): void;
  reset(): void;
}

let saveTimer: ReturnType<typeof setTimeout> | undefined;
let pendingSave: Settings | undefined;
let save: ((s: Settings) => Promise<unknown>) | undefined;

function flushSave(): void {
  clearTimeout(saveTimer);
  saveTimer = undefined;
  const next = pendingSave;
  pendingSave = undefined;
  if (next && save) void save(next);
}

/** Saved a moment after the last change (a zoom held down is one write), and at once when the page goes away. */
function scheduleSave(next: Settings): void {
  pendingSave = next;
  clearTimeout(saveTimer);
  saveTimer = setTimeout(flushSave, SAVE_DELAY_MS);
}

export const useSettings = create<SettingsState>((set, get) => ({
  ...parseSettings({}),
  loaded: false,
  update: (patch) => {
    const next = parseSettings({ ...pick(get()), ...patch });
    set(next);
    scheduleSave(next);
  },
  reset: () => {
    const next = parseSettings({});
    set(next);
    scheduleSave(next);
  },
}));

// The key table follows the saved shortcuts, in every window on the profile.
let lastKeys = '';
useSettings.subscribe((s) => {
  if (s.keys === lastKeys) return;
  lastKeys = s.keys;
  setKeyOverrides(parseKeyOverrides(s.keys));
});

/**
 * Reads the profile's settings through the Core (`get`) and keeps them there (`put`). A profile without any takes
 * what this browser kept before settings moved to the profile.
 */
export async function loadSettings(io: {
  get(): Promise<Record<string, unknown> | null | undefined>;
  put(s: Settings): Promise<unknown>;
}): Promise<void> {
  save = io.put;
  window.addEventListener('pagehide', flushSave);
  let stored = await io.get();
  if (stored === undefined) return;
  if (stored === null) {
    const legacy = readLegacy();
    if (legacy) {
      stored = legacy;
      await io.put(parseSettings(legacy));
    }
  }
  try {
    window.localStorage.removeItem(LEGACY_KEY);
  } catch {
    /* storage unavailable */
  }
  // A change made while the profile's copy was loading wins over it.
  if (pendingSave) return useSettings.setState({ loaded: true });
  useSettings.setState({ ...parseSettings(stored ?? {}), loaded: true });
}

function readLegacy(): Record<string, unknown> | undefined {
  try {
    const raw: unknown = JSON.parse(window.localStorage.getItem(LEGACY_KEY) ?? 'null');
    return raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : undefined;
  } catch {
    // none kept, or damaged: the defaults
    return undefined;
  }
}

export function pick(s: Settings): Settings {
  const { fontFamily, fontSize, zoom, scrollback, theme, terminalScheme, minimumContrast, cursorStyle, cursorBlink } =
    s;
  const { copyOnSelect, ctrlVPastes, gpu, keys, compactTargets, screenReaderMode } = s;
  return {
    fontFamily,
    fontSize,
    zoom,
    scrollback,
    theme,
    terminalScheme,
    minimumContrast,
    cursorStyle,
    cursorBlink,
    copyOnSelect,
    ctrlVPastes,
    gpu,
    keys,
    compactTargets,
    screenReaderMode,
  };
}

/** CSS generic families: written bare; any other name is quoted (`3270 Nerd Font` is no valid bare name). */
const GENERIC_FAMILIES = new Set([
  'monospace',
  'ui-monospace',
  'serif',
  'sans-serif',
  'system-ui',
  'cursive',
  'fantasy',
]);

/**
 * The font stack a terminal draws with: the person's names, each quoted, then `monospace`, so a font this machine lacks
 * falls back to a fixed-width one, never to the browser's proportional default.
 */
export function terminalFontStack(family: string): string {
  const names = family
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => {
      const bare = /^(['"])(.*)\1$/.exec(n)?.[2] ?? n;
      return GENERIC_FAMILIES.has(bare.toLowerCase()) ? bare.toLowerCase() : `"${bare.replace(/["\\]/g, '')}"`;
    });
  if (names.length === 0) return MONO_FONT;
  return names.some((n) => n === 'monospace' || n === 'ui-monospace')
    ? names.join(', ')
    : [...names, 'monospace'].join(', ');
}

export function effectiveFontSize(s: Pick<Settings, 'fontSize' | 'zoom'>): number {
  return Math.min(FONT_SIZE.max, Math.max(FONT_SIZE.min, s.fontSize + s.zoom));
}

/** Whether a WebGL renderer string names a software rasterizer. */
export function isSoftwareRenderer(renderer: string): boolean {
  return /swiftshader|llvmpipe|softpipe|software|basic render driver/i.test(renderer);
}
