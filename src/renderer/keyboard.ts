// The window's keyboard shortcuts, recognised in one place so xterm can let them through to the app.
export type AppShortcut = 'newTab' | 'split' | 'closePane';

export const shortcutLabels: Record<AppShortcut, string> = {
  newTab: 'Ctrl+Shift+T',
  split: 'Ctrl+Shift+D',
  closePane: 'Ctrl+Shift+W',
};

export function appShortcut(e: KeyboardEvent): AppShortcut | undefined {
  if (!e.ctrlKey || !e.shiftKey || e.altKey || e.metaKey) return undefined;
  switch (e.code || `Key${e.key.toUpperCase()}`) {
    case 'KeyT': return 'newTab';
    case 'KeyD': return 'split';
    case 'KeyW': return 'closePane';
    default: return undefined;
  }
}
