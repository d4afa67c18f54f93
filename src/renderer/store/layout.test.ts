import { beforeEach, describe, expect, it } from 'vitest';
import { WorkspaceLayout } from '../../shared/api.js';
import { savedLayout, tabPaneIds, tabTitle, useLayout } from './layout.js';

const s = () => useLayout.getState();
const order = (i = 0) => tabPaneIds(s().tabs[i]!);

beforeEach(() => useLayout.setState({ tabs: [], panes: {}, activeTabId: undefined, focusedPaneId: undefined }));

describe('layout store', () => {
  it('opens a tab with one focused pane', () => {
    const p = s().newTab('alpha');
    expect(s().tabs).toHaveLength(1);
    expect(s().focusedPaneId).toBe(p);
    expect(s().panes[p]).toMatchObject({ target: 'alpha', status: 'connecting' });
  });

  it('splits next to the pane, on the same target and in its cwd, and focuses the new pane', () => {
    const a = s().newTab('alpha');
    s().updatePane(a, { cwd: '/w/x', status: 'open' });
    const c = s().splitPane(a)!;
    const b = s().splitPane(a, 'down', 'beta')!;
    expect(order()).toEqual([a, b, c]);
    expect(s().panes[c]).toMatchObject({ target: 'alpha', startCwd: '/w/x' });
    expect(s().panes[b]!.target).toBe('beta');
    expect(s().panes[b]!.startCwd, 'another target has its own directories').toBeUndefined();
    expect(s().focusedPaneId).toBe(b);
  });

  it('moves focus by geometry: right, then down, and nowhere past the edge', () => {
    const a = s().newTab('alpha');
    const b = s().splitPane(a, 'right')!;
    const c = s().splitPane(b, 'down')!;
    s().focusPane(a);
    expect(s().moveFocus('right')).toBe(true);
    expect(s().focusedPaneId).toBe(b);
    expect(s().moveFocus('down')).toBe(true);
    expect(s().focusedPaneId).toBe(c);
    expect(s().moveFocus('down')).toBe(false);
    expect(s().moveFocus('left')).toBe(true);
    expect(s().focusedPaneId).toBe(a);
  });

  it('closing a pane focuses the one before it; closing the last pane closes the tab', () => {
    const a = s().newTab('alpha');
    const b = s().splitPane(a)!;
    s().closePane(b);
    expect(s().focusedPaneId).toBe(a);
    const t2 = s().newTab('beta');
    s().closePane(t2);
    expect(s().tabs).toHaveLength(1);
    expect(s().activeTabId).toBe(s().tabs[0]!.id);
    s().closePane(a);
    expect(s().tabs).toHaveLength(0);
    expect(s().focusedPaneId).toBeUndefined();
  });

  it('zooms a pane and back; a split or closing the zoomed pane ends the zoom', () => {
    const a = s().newTab('alpha');
    const b = s().splitPane(a)!;
    s().toggleZoom(a);
    expect(s().tabs[0]!.zoomed).toBe(a);
    expect(s().moveFocus('right'), 'the other panes are hidden').toBe(false);
    s().toggleZoom(a);
    expect(s().tabs[0]!.zoomed).toBeUndefined();
    s().toggleZoom(b);
    s().closePane(b);
    expect(s().tabs[0]!.zoomed).toBeUndefined();
    s().toggleZoom(a);
    expect(s().tabs[0]!.zoomed, 'a lone pane has nothing to zoom over').toBeUndefined();
  });

  it('cycles, reorders and renames tabs', () => {
    s().newTab('alpha');
    s().newTab('beta');
    s().newTab('gamma');
    const [t1, t2, t3] = s().tabs.map((t) => t.id);
    s().cycleTab(1);
    expect(s().activeTabId).toBe(t1);
    s().cycleTab(-1);
    expect(s().activeTabId).toBe(t3);
    s().moveTab(t3!, 0);
    expect(s().tabs.map((t) => t.id)).toEqual([t3, t1, t2]);
    s().renameTab(t1!, '  build  ');
    expect(tabTitle(s(), s().tabs[1]!)).toBe('build');
    s().renameTab(t1!, '');
    expect(tabTitle(s(), s().tabs[1]!)).toBe('alpha');
  });

  it('titles a tab by its program, else target: cwd', () => {
    const a = s().newTab('alpha');
    s().updatePane(a, { cwd: '/home/me/src/app' });
    expect(tabTitle(s(), s().tabs[0]!)).toBe('alpha: …/src/app');
    s().updatePane(a, { title: 'vim notes.md' });
    expect(tabTitle(s(), s().tabs[0]!)).toBe('vim notes.md');
  });

  it('saves nested splits and given titles, and restores them', () => {
    const a = s().newTab('alpha');
    const b = s().splitPane(a, 'right', 'beta')!;
    s().splitPane(b, 'down');
    s().renameTab(s().tabs[0]!.id, 'work');
    s().newTab('beta');
    const saved = savedLayout(s());
    expect(saved).toEqual({
      tabs: [
        {
          panes: [{ target: 'alpha' }, { target: 'beta' }, { target: 'beta' }],
          split: { dir: 'right', ratio: 0.5, a: 0, b: { dir: 'down', ratio: 0.5, a: 1, b: 2 } },
          title: 'work',
        },
        { panes: [{ target: 'beta' }] },
      ],
      active_tab: 1,
    });
    s().restore(saved.tabs, 0);
    expect(savedLayout(s())).toEqual({ ...saved, active_tab: 0 });
    expect(s().focusedPaneId).toBe(order(0)[0]);
  });

  it('a new target resets what was known of the old one', () => {
    const a = s().newTab('alpha');
    s().updatePane(a, { status: 'open', cwd: '/x', generation: 'g1' });
    s().setPaneTarget(a, 'beta');
    expect(s().panes[a]).toEqual({ id: a, target: 'beta', status: 'connecting' });
  });

  it('focusing a pane in another tab activates that tab', () => {
    const a = s().newTab('alpha');
    s().newTab('beta');
    s().focusPane(a);
    expect(s().activeTabId).toBe(s().tabs[0]!.id);
  });

  it('marks a tab with a colour, keeps it across a save and restore, and takes it off again', () => {
    s().newTab('alpha');
    const tab = s().tabs[0]!.id;
    s().setTabColor(tab, 'green');
    expect(savedLayout(s()).tabs[0]).toEqual({ panes: [{ target: 'alpha' }], color: 'green' });
    s().restore(savedLayout(s()).tabs, 0);
    expect(s().tabs[0]!.color).toBe('green');
    s().setTabColor(s().tabs[0]!.id, undefined);
    expect(s().tabs[0]).not.toHaveProperty('color');
  });

  it('drops a tab colour it does not know (a newer build saved it), not the whole layout', () => {
    const parsed = WorkspaceLayout.parse({ tabs: [{ panes: [{ target: 'a' }], color: 'chartreuse' }], active_tab: 0 });
    expect(parsed.tabs[0]?.color).toBeUndefined();
    expect(parsed.tabs[0]?.panes).toEqual([{ target: 'a' }]);
  });

  it('duplicates a tab after it: each pane on its target, in its directory, split the same way', () => {
    const a = s().newTab('alpha');
    s().updatePane(a, { status: 'open', cwd: '/w/a' });
    const b = s().splitPane(a, 'down', 'beta')!;
    s().updatePane(b, { status: 'open', cwd: '/w/b' });
    s().newTab('beta');
    const first = s().tabs[0]!;
    s().renameTab(first.id, 'work');
    s().setTabColor(first.id, 'purple');
    s().focusPane(b);
    const focus = s().duplicateTab(first.id)!;
    expect(s().tabs).toHaveLength(3);
    const copy = s().tabs[1]!;
    expect(s().activeTabId).toBe(copy.id);
    expect(copy).toMatchObject({ title: 'work', color: 'purple' });
    const [ca, cb] = tabPaneIds(copy);
    expect(s().panes[ca!]).toMatchObject({ target: 'alpha', startCwd: '/w/a', status: 'connecting' });
    expect(s().panes[cb!]).toMatchObject({ target: 'beta', startCwd: '/w/b' });
    expect(focus).toBe(cb);
    expect(s().focusedPaneId).toBe(cb);
    const saved = savedLayout(s());
    expect(saved.tabs[1]!.split).toEqual(saved.tabs[0]!.split);
    expect(s().duplicateTab('no-such-tab')).toBeUndefined();
  });
});
