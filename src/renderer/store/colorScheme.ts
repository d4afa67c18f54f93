// Light or dark: the Settings choice, or the system's (prefers-color-scheme) followed as it changes.
import { create } from 'zustand';
import type { Settings } from './settings.js';

const query =
  typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: light)') : undefined;

/** The system's scheme, kept current. */
export const useColorScheme = create<{ system: 'dark' | 'light' }>(() => ({
  system: query?.matches ? 'light' : 'dark',
}));
query?.addEventListener('change', (e) => useColorScheme.setState({ system: e.matches ? 'light' : 'dark' }));

export function resolvedScheme(theme: Settings['theme']): 'dark' | 'light' {
  return theme === 'system' ? useColorScheme.getState().system : theme;
}
