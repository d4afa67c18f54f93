// The bottom status line: connection to the Core, the focused pane's target, and the keyboard shortcuts.
import { useConnection } from '../client/core.js';
import { useLayout } from '../store/layout.js';
import { useTargets } from '../store/targets.js';
import { shortcutOf } from '../keyboard.js';
import { useUi } from '../store/ui.js';
import { shownState } from '../targetHealth.js';

const connText = { connecting: 'Connecting to the Core…', open: 'Connected', closed: 'Disconnected' } as const;

export function StatusBar() {
  const conn = useConnection((s) => s.state);
  const reason = useConnection((s) => s.reason);
  const focused = useLayout((s) => (s.focusedPaneId ? s.panes[s.focusedPaneId] : undefined));
  // Only what was checked counts: a target still being probed is neither up nor down yet.
  const counts = useTargets((s) => {
    let up = 0;
    let down = 0;
    let checking = 0;
    let unchecked = 0;
    for (const t of s.list) {
      const shown = shownState(t);
      if (shown === 'unreachable') down++;
      else if (shown === 'reachable') up++;
      else if (shown === 'checking' || shown === 'active') checking++;
      else if (shown === 'unchecked') unchecked++;
    }
    return [
      `${up}/${up + down} targets reachable`,
      checking ? `${checking} checking` : '',
      unchecked ? `${unchecked} not checked yet` : '',
    ]
      .filter(Boolean)
      .join(' · ');
  });
  return (
    <footer className="statusbar">
      <span className={`statusbar__conn statusbar__conn--${conn}`} title={reason}>
        <span className={`dot dot--conn-${conn}`} aria-hidden="true" />
        {connText[conn]}
      </span>
      <span className="statusbar__item" role="note" aria-label="Target health">
        {conn === 'closed' ? 'targets unknown while disconnected' : counts}
      </span>
      {focused && (
        <span className="statusbar__item mono">
          {focused.target}
          {focused.generation ? `#${focused.generation.slice(0, 7)}` : ''}
        </span>
      )}
      <span className="statusbar__spacer" />
      <span className="statusbar__item statusbar__hint">
        <kbd>{shortcutOf('splitRight')}</kbd> split right
      </span>
      <span className="statusbar__item statusbar__hint">
        <kbd>{shortcutOf('splitDown')}</kbd> split down
      </span>
      <button
        type="button"
        className="statusbar__button"
        title="All commands and their keys"
        onClick={() => useUi.getState().setPalette(true)}
      >
        <kbd>{shortcutOf('palette')}</kbd> commands
      </button>
      <button
        type="button"
        className="statusbar__button"
        title={`Settings (${shortcutOf('settings')})`}
        onClick={() => useUi.getState().setSettings(true)}
      >
        Settings
      </button>
    </footer>
  );
}
