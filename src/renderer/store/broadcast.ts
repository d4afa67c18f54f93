// Broadcast input (Tabby's and iTerm's): the panes that get what a person types into any one of them. Each receiving
// pane is marked (a coloured border, a badge in its header) and a bar over the panes says how many there are.
//
// Kept in this page's memory only: a reload, or a second window, starts with nothing broadcasting. Typing into
// several shells at once is a choice made for the moment; a page that came back still sending every key to
// machines picked an hour ago (a production one among them) is the accident the marking is there to prevent.
import { create } from 'zustand';
import { useLayout } from './layout.js';

interface BroadcastState {
  /** UI pane ids, in the order they joined. */
  members: readonly string[];
  /** Adds the pane, or takes it out (Ctrl/Cmd-click on its header). */
  toggle(paneId: string): void;
  /** These panes and no others (all panes of a tab). */
  only(paneIds: readonly string[]): void;
  stop(): void;
}

export const useBroadcast = create<BroadcastState>((set, get) => ({
  members: [],
  toggle: (paneId) => {
    const { members } = get();
    set({ members: members.includes(paneId) ? members.filter((id) => id !== paneId) : [...members, paneId] });
  },
  only: (paneIds) => set({ members: [...new Set(paneIds)] }),
  stop: () => set({ members: [] }),
}));

// A pane that closes leaves the group (its id is never used again).
useLayout.subscribe((layout) => {
  const { members } = useBroadcast.getState();
  const left = members.filter((id) => layout.panes[id] !== undefined);
  if (left.length !== members.length) useBroadcast.setState({ members: left });
});

/** Whether keys typed into this pane go to others too (it is in a group of two or more). */
export function broadcastsFrom(paneId: string): boolean {
  const { members } = useBroadcast.getState();
  return members.length > 1 && members.includes(paneId);
}
