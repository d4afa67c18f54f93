// Restores the tabs and panes of the last session when the window opens, and saves them as they change.
import { call } from '../client/core.js';
import { savedLayout, useLayout, type SavedTab } from './layout.js';
import { preferredTarget, useTargets } from './targets.js';

let started = false;

/**
 * Called once the targets are known. A saved pane whose target is gone opens on the preferred target
 * instead, so nobody comes back to an empty window.
 */
export async function restoreWorkspace(): Promise<void> {
  if (started) return;
  started = true;
  const saved = await call('workspace.get', {});
  const list = useTargets.getState().list;
  const fallback = preferredTarget(list);
  const names = new Set(list.map((t) => t.name));
  const layout = useLayout.getState();
  if (layout.tabs.length === 0) {
    if (saved && saved.tabs.length > 0) {
      // Without a fallback a gone target's pane is dropped, and the tab's saved split with it (the panes go side by
      // side).
      const tabs = saved.tabs
        .map((t) => {
          const panes = t.panes
            .map((p) => (names.has(p.target) ? p : fallback === undefined ? undefined : { target: fallback }))
            .filter((x): x is SavedTab['panes'][number] => x !== undefined);
          const { split, ...rest } = t;
          return panes.length === t.panes.length ? { ...t, panes } : { ...rest, panes };
        })
        .filter((t) => t.panes.length > 0);
      layout.restore(tabs, saved.active_tab);
    }
    if (useLayout.getState().tabs.length === 0 && fallback) layout.newTab(fallback);
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last = JSON.stringify(savedLayout(useLayout.getState()));
  const save = (): void => {
    clearTimeout(timer);
    timer = undefined;
    void call('workspace.save', JSON.parse(last));
  };
  useLayout.subscribe((s) => {
    const next = JSON.stringify(savedLayout(s));
    if (next === last) return;
    last = next;
    clearTimeout(timer);
    timer = setTimeout(save, 300);
  });
  // A change made just before the page goes away (a reload, a closed tab) is saved, not lost with the debounce.
  window.addEventListener('pagehide', () => {
    if (timer !== undefined) save();
  });
}
