// The person's terminal settings (font, zoom, scrollback, theme, copy-on-select, renderer), kept in this browser's localStorage.
// The Core's API has no profile-backed place for UI settings yet; workspace.save holds the layout only.
import { z, config as zodConfig } from 'zod';
import { create } from 'zustand';
import { MONO_FONT } from '../terminal/theme.js';

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
  theme: z.enum(['system', 'dark', 'light']).catch('system'),
  copyOnSelect: z.boolean().catch(false),
  /** Ctrl+V pastes instead of sending ^V (the Windows convention); Ctrl+Shift+V always pastes. */
  ctrlVPastes: z.boolean().catch(isWindows()),
  /** `auto` uses WebGL only on a hardware GPU: a software rasterizer (SwiftShader, llvmpipe) is slower than the DOM renderer. */
  gpu: z.enum(['auto', 'on', 'off']).catch('auto'),
});
export type Settings = z.infer<typeof SettingsSchema>;

const KEY = 'switchboard.settings';

function isWindows(): boolean {
  return typeof navigator !== 'undefined' && /^Win/i.test(navigator.platform);
}

/** Saved settings, each field checked on its own: one bad value falls back alone. */
export function parseSettings(raw: unknown): Settings {
  return SettingsSchema.parse(typeof raw === 'object' && raw !== null ? raw : {});
}

function load(): Settings {
  try {
    return parseSettings(JSON.parse(window.localStorage.getItem(KEY) ?? '{}'));
  } catch {
    return parseSettings({});
  }
}

interface SettingsState extends Settings {
  update(patch: Partial<Settings>): void;
  reset(): void;
}

export const useSettings = create<SettingsState>((set, get) => ({
  ...load(),
  update: (patch) => {
    const next = parseSettings({ ...pick(get()), ...patch });
    set(next);
    window.localStorage.setItem(KEY, JSON.stringify(next));
  },
  reset: () => {
    window.localStorage.removeItem(KEY);
    set(parseSettings({}));
  },
}));

export function pick(s: Settings): Settings {
  const { fontFamily, fontSize, zoom, scrollback, theme, copyOnSelect, ctrlVPastes, gpu } = s;
  return { fontFamily, fontSize, zoom, scrollback, theme, copyOnSelect, ctrlVPastes, gpu };
}

export function effectiveFontSize(s: Pick<Settings, 'fontSize' | 'zoom'>): number {
  return Math.min(FONT_SIZE.max, Math.max(FONT_SIZE.min, s.fontSize + s.zoom));
}

/** Whether a WebGL renderer string names a software rasterizer. */
export function isSoftwareRenderer(renderer: string): boolean {
  return /swiftshader|llvmpipe|softpipe|software|basic render driver/i.test(renderer);
}
