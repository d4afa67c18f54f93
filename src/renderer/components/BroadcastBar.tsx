// The bar over the panes while input is broadcast: how many panes get every key, where they are, and Stop.
import { useBroadcast } from '../store/broadcast.js';
import { useLayout, tabPaneIds } from '../store/layout.js';
import { shortcutOf } from '../keyboard.js';

export function BroadcastBar() {
  const members = useBroadcast((s) => s.members);
  const elsewhere = useLayout((s) => {
    const tab = s.tabs.find((t) => t.id === s.activeTabId);
    const here = new Set(tab ? tabPaneIds(tab) : []);
    return members.filter((id) => !here.has(id)).length;
  });
  if (members.length === 0) return null;
  const key = shortcutOf('broadcastStop');
  const lone = members.length === 1;
  return (
    <div className="broadcast-bar" role="status" aria-label="Broadcast input">
      <span className="broadcast-bar__dot" aria-hidden="true" />
      <span className="broadcast-bar__text">
        {lone
          ? 'Broadcast input: 1 pane marked; Ctrl+click another pane’s header to type into both'
          : `Broadcasting input to ${members.length} panes: every key typed into one goes to all of them`}
        {elsewhere > 0 && ` (${elsewhere} in ${elsewhere === 1 ? 'another tab' : 'other tabs'})`}
      </span>
      <button
        type="button"
        className="button button--small"
        onClick={() => useBroadcast.getState().stop()}
        title={key ? `Stop broadcasting (${key})` : 'Stop broadcasting'}
      >
        Stop broadcasting
      </button>
    </div>
  );
}
