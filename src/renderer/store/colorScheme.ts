// Light, dark or high contrast: the Settings choice, or the system's (prefers-color-scheme, prefers-contrast) followed
// as it changes; and whether the system asks for less motion (prefers-reduced-motion: no blinking cursor).
import { create } from 'zustand';
import type { Settings } from './settings.js';

export type Scheme = 'dark' | 'light' | 'high-contrast';

const media = (q: string): MediaQueryList | undefined =>
  typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(q) : undefined;
const light = media('(prefers-color-scheme: light)');
const contrast = media('(prefers-contrast: more)');
const still = media('(prefers-reduced-motion: reduce)');

/** The system's preferences, kept current. */
export const useColorScheme = create<{ system: 'dark' | 'light'; moreContrast: boolean; reducedMotion: boolean }>(
  () => ({
    system: light?.matches ? 'light' : 'dark',
    moreContrast: contrast?.matches ?? false,
    reducedMotion: still?.matches ?? false,
  }),
);
light?.addEventListener('change', (e) => useColorScheme.setState({ system: e.matches ? 'light' : 'dark' }));
contrast?.addEventListener('change', (e) => useColorScheme.setState({ moreContrast: e.matches }));
still?.addEventListener('change', (e) => useColorScheme.setState({ reducedMotion: e.matches }));

export function resolvedScheme(theme: Settings['theme']): Scheme {
  if (theme !== 'system') return theme;
  const s = useColorScheme.getState();
  return s.moreContrast ? 'high-contrast' : s.system;
}
