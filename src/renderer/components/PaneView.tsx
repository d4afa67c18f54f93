// One pane: a header (target picker, cwd, status, split/zoom/close) over an xterm whose bytes never touch React.
import { useEffect, useRef, type CSSProperties } from 'react';
import { useLayout, type PaneStatus } from '../store/layout.js';
import { useTargets } from '../store/targets.js';
import { useBackendView } from '../store/backends.js';
import { useUi } from '../store/ui.js';
import { TerminalSession } from '../terminal/TerminalSession.js';
import { sessions } from '../terminal/sessions.js';
import { closePane, splitPane, switchTarget, toggleZoom } from '../actions.js';
import { TargetPicker } from './TargetPicker.js';
import { FindBar } from './FindBar.js';
import {
  BackendIcon,
  IconBookmark,
  IconClose,
  IconFolder,
  IconMaximize,
  IconRestore,
  IconSplit,
  IconSplitDown,
} from './icons.js';
import { shortcutOf } from '../keyboard.js';
import { useConnection } from '../client/core.js';
import { useBroadcast } from '../store/broadcast.js';
import { sendToGroup } from '../terminal/broadcastInput.js';
import { useDialogs } from '../store/dialogs.js';
import { SESSION_PROVIDER } from '../../shared/targets.js';
import { ReconnectBar } from './ReconnectBar.js';

const statusText: Record<PaneStatus, string> = {
  connecting: 'connecting',
  open: 'live',
  reconnecting: 'reconnecting',
  exited: 'exited',
  lost: 'connection lost',
  failed: 'failed',
};

interface PaneViewProps {
  paneId: string;
  index: number;
  count: number;
  focused: boolean;
  zoomed: boolean;
  style: CSSProperties;
  /** Which sides border another pane (drawn as a line). */
  edges: { left: boolean; top: boolean };
}

const withKey = (title: string, id: Parameters<typeof shortcutOf>[0]): string => {
  const k = shortcutOf(id);
  return k ? `${title} (${k})` : title;
};

export function PaneView({ paneId, index, count, focused, zoomed, style, edges }: PaneViewProps) {
  const pane = useLayout((s) => s.panes[paneId]);
  const target = useTargets((s) => s.list.find((t) => t.name === pane?.target));
  const backend = useBackendView(target?.backend ?? '');
  const finding = useUi((s) => s.finding[paneId]);
  // Without the Core connection no pane is live, whatever it last heard: the dot says so.
  const offline = useConnection((s) => s.state === 'closed');
  const host = useRef<HTMLDivElement>(null);
  const broadcasting = useBroadcast((s) => s.members.includes(paneId));
  const groupSize = useBroadcast((s) => s.members.length);

  useEffect(() => {
    const layout = useLayout.getState();
    const initial = layout.panes[paneId];
    if (!initial || !host.current) return;
    const session = new TerminalSession(
      initial.target,
      {
        status: (status, info) =>
          useLayout.getState().updatePane(
            paneId,
            info
              ? {
                  status,
                  generation: info.generation,
                  corePaneId: info.pane_id,
                  ...(info.cwd ? { cwd: info.cwd } : {}),
                  cwdMissing: info.cwd_missing,
                }
              : { status },
          ),
        reconnect: (reconnect) => useLayout.getState().updatePane(paneId, { reconnect }),
        cwd: (cwd) => useLayout.getState().updatePane(paneId, { cwd }),
        title: (title) => useLayout.getState().updatePane(paneId, { title: title.slice(0, 200) }),
        focus: () => useLayout.getState().focusPane(paneId),
        typed: (data) => sendToGroup(paneId, data),
      },
      initial.startCwd,
      initial.resumeId,
    );
    sessions.set(paneId, session);
    session.mount(host.current);
    if (useLayout.getState().focusedPaneId === paneId) session.focus();
    return () => {
      sessions.delete(paneId);
      session.dispose();
    };
  }, [paneId]);

  const targetName = pane?.target;
  useEffect(() => {
    if (targetName) sessions.get(paneId)?.setTarget(targetName);
  }, [paneId, targetName]);

  if (!pane) return null;
  const status: PaneStatus = offline && pane.status !== 'exited' ? 'lost' : pane.status;
  const classes = [
    'pane',
    focused && 'pane--focused',
    edges.left && 'pane--edge-left',
    edges.top && 'pane--edge-top',
    count > 1 && 'pane--multi',
    broadcasting && 'pane--broadcast',
  ];

  return (
    // Ctrl+click is a mouse shortcut; the palette's "Broadcast input to… selected panes" is the keyboard's.
    // biome-ignore lint/a11y/useKeyWithClickEvents: the palette does the same by keys
    <section
      className={classes.filter(Boolean).join(' ')}
      style={style}
      aria-label={`Pane ${index + 1}`}
      onMouseDown={() => useLayout.getState().focusPane(paneId)}
      onClick={(e) => {
        // Ctrl+click (Cmd+click on a Mac) on the header picks the panes a broadcast types into; buttons keep theirs.
        const at = e.target as Element;
        if (!(e.ctrlKey || e.metaKey) || !at.closest('.pane__header') || at.closest('button, select, input, a')) return;
        e.preventDefault();
        useBroadcast.getState().toggle(paneId);
      }}
      onContextMenu={(e) => {
        if (!host.current?.contains(e.target as Node)) return;
        e.preventDefault();
        useLayout.getState().focusPane(paneId);
        useUi.getState().setContextMenu({ paneId, x: e.clientX, y: e.clientY });
      }}
    >
      <header className="pane__header">
        <span className={`dot dot--pane-${status}`} title={statusText[status]} aria-hidden="true" />
        <span className="pane__backend" title={target ? backend.line : undefined}>
          <BackendIcon flags={target?.flags} fallback={Boolean(target) && backend.fallbackIcon} size={13} />
        </span>
        <TargetPicker value={pane.target} onChange={(t) => switchTarget(paneId, t)} />
        {broadcasting && (
          <span
            className="chip chip--broadcast"
            role="status"
            aria-label="broadcasting"
            title={
              groupSize > 1
                ? `Keys typed into any of the ${groupSize} panes marked so go to all of them. ` +
                  'Ctrl+click the header to take this pane out; Stop broadcasting above ends it.'
                : 'Marked for broadcast input: Ctrl+click another pane’s header to type into both.'
            }
          >
            broadcasting
          </span>
        )}
        {/* No sandbox mark: a person's own pane is never sandboxed (only agent work is; the sidebar's row says where
            that runs). */}
        <span className="pane__cwd mono" role="status" aria-label="Working directory" title={pane.cwd}>
          <IconFolder size={12} />
          <span className="pane__cwd-text">
            <bdi dir="ltr">{pane.cwd ?? '…'}</bdi>
          </span>
        </span>
        {pane.cwdMissing && status === 'open' && (
          <span
            className="chip chip--warn"
            role="status"
            title={
              `${pane.cwdMissing} does not exist on ${pane.target}; this shell started in the nearest folder ` +
              `above it that does`
            }
          >
            {pane.cwdMissing} missing
          </span>
        )}
        {status !== 'open' && (
          <span className={`chip chip--${status}`}>{offline ? 'disconnected' : statusText[status]}</span>
        )}
        {target?.provider === SESSION_PROVIDER && (
          <button
            type="button"
            className="chip chip--save"
            aria-label="Save target…"
            title={`${pane.target} is a session target: it goes when Switchboard stops. Save it to keep it.`}
            onClick={() =>
              useDialogs.getState().openTargetForm({ mode: 'add', prefill: { name: target.name, spec: target.spec } })
            }
          >
            <IconBookmark size={11} />
            <span className="chip__label">Save target…</span>
          </button>
        )}
        {pane.status === 'open' && pane.generation && target && target.generation !== pane.generation && (
          <button
            type="button"
            className="chip chip--stale"
            onClick={() => sessions.get(paneId)?.reopen()}
            title={
              `This shell runs on generation ${pane.generation}; the target now has ${target.generation}. ` +
              `Click to close it and open a new shell on the new one.`
            }
          >
            older generation · reopen
          </button>
        )}
        <span className="pane__actions">
          <button
            type="button"
            className="icon-button pane__action--more"
            aria-label="Split right"
            title={withKey('Split right', 'splitRight')}
            onClick={() => splitPane(paneId, 'right')}
          >
            <IconSplit />
          </button>
          <button
            type="button"
            className="icon-button pane__action--more"
            aria-label="Split down"
            title={withKey('Split down', 'splitDown')}
            onClick={() => splitPane(paneId, 'down')}
          >
            <IconSplitDown />
          </button>
          {(count > 1 || zoomed) && (
            <button
              type="button"
              className={`icon-button pane__action--more${zoomed ? ' icon-button--on' : ''}`}
              aria-label={zoomed ? 'Restore pane' : 'Zoom pane'}
              aria-pressed={zoomed}
              title={withKey(zoomed ? 'Restore the other panes' : 'Zoom this pane to the whole tab', 'zoomPane')}
              onClick={() => toggleZoom(paneId)}
            >
              {zoomed ? <IconRestore /> : <IconMaximize />}
            </button>
          )}
          <button
            type="button"
            className="icon-button"
            aria-label="Close pane"
            title={withKey('Close pane', 'closePane')}
            onClick={() => closePane(paneId)}
          >
            <IconClose />
          </button>
        </span>
      </header>
      <div className="pane__body">
        {status === 'reconnecting' && pane.reconnect && (
          <ReconnectBar paneId={paneId} target={pane.target} state={pane.reconnect} />
        )}
        {finding !== undefined && <FindBar paneId={paneId} openCount={finding} />}
        <div className="pane__terminal" ref={host} />
      </div>
    </section>
  );
}
