import { beforeEach, describe, expect, it } from 'vitest';
import { useLayout } from './layout.js';

const s = () => useLayout.getState();

beforeEach(() => useLayout.setState({ tabs: [], panes: {}, activeTabId: undefined, focusedPaneId: undefined }));

describe('layout store', () => {
  it('opens a tab with one focused pane', () => {
    const p = s().newTab('alpha');
    expect(s().tabs).toHaveLength(1);
    expect(s().focusedPaneId).toBe(p);
    expect(s().panes[p]).toMatchObject({ target: 'alpha', status: 'connecting' });
  });

  it('splits to the right of the pane, on the same target, and focuses the new pane', () => {
    const a = s().newTab('alpha');
    const c = s().splitPane(a)!;
    const b = s().splitPane(a, 'beta')!;
    expect(s().tabs[0]!.paneIds).toEqual([a, b, c]);
    expect(s().panes[c]!.target).toBe('alpha');
    expect(s().panes[b]!.target).toBe('beta');
    expect(s().focusedPaneId).toBe(b);
  });

  it('closing a pane focuses its left neighbour; closing the last pane closes the tab', () => {
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
});
