// One pane: a header (target picker, cwd, status, split/close) over an xterm whose bytes never touch React.
import { useEffect, useRef } from 'react';
import { useLayout, type PaneStatus } from '../store/layout.js';
import { useTargets } from '../store/targets.js';
import { TerminalSession } from '../terminal/TerminalSession.js';
import { sessions, focusTerminal } from '../terminal/sessions.js';
import { TargetPicker } from './TargetPicker.js';
import { BackendIcon, IconClose, IconFolder, IconSplit } from './icons.js';
import { shortcutLabels } from '../keyboard.js';

const statusText: Record<PaneStatus, string> = {
  connecting: 'connecting',
  open: 'live',
  exited: 'exited',
  lost: 'connection lost',
  failed: 'failed',
};

export function PaneView({ paneId, index, focused }: { paneId: string; index: number; focused: boolean }) {
  const pane = useLayout((s) => s.panes[paneId]);
  const target = useTargets((s) => s.list.find((t) => t.name === pane?.target));
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const layout = useLayout.getState();
    const initial = layout.panes[paneId];
    if (!initial || !host.current) return;
    const session = new TerminalSession(initial.target, {
      status: (status, info) => useLayout.getState().updatePane(paneId, info
        ? { status, generation: info.generation, ...(info.cwd ? { cwd: info.cwd } : {}) }
        : { status }),
      cwd: (cwd) => useLayout.getState().updatePane(paneId, { cwd }),
      focus: () => useLayout.getState().focusPane(paneId),
    });
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
  const split = (): void => focusTerminal(useLayout.getState().splitPane(paneId));
  const close = (): void => {
    useLayout.getState().closePane(paneId);
    focusTerminal(useLayout.getState().focusedPaneId);
  };

  return (
    <section
      className={`pane${focused ? ' pane--focused' : ''}`}
      aria-label={`Pane ${index + 1}`}
      onMouseDown={() => useLayout.getState().focusPane(paneId)}
    >
      <header className="pane__header">
        <span className={`dot dot--pane-${pane.status}`} title={statusText[pane.status]} aria-hidden="true" />
        <span className="pane__backend" title={target?.backend}><BackendIcon flags={target?.flags} size={13} /></span>
        <TargetPicker value={pane.target} onChange={(t) => {
          useLayout.getState().setPaneTarget(paneId, t);
          focusTerminal(paneId);
        }} />
        <span className="pane__cwd mono" role="status" aria-label="Working directory" title={pane.cwd}>
          <IconFolder size={12} />
          <span className="pane__cwd-text"><bdi dir="ltr">{pane.cwd ?? '…'}</bdi></span>
        </span>
        {pane.status !== 'open' && <span className={`chip chip--${pane.status}`}>{statusText[pane.status]}</span>}
        {pane.status === 'open' && pane.generation && target && target.generation !== pane.generation && (
          <button type="button" className="chip chip--stale" onClick={() => sessions.get(paneId)?.reopen()}
            title={`This shell runs on generation ${pane.generation}; the target now has ${target.generation}. Click to close it and open a new shell on the new one.`}>
            older generation · reopen
          </button>
        )}
        <span className="pane__actions">
          <button type="button" className="icon-button" aria-label="Split right" title={`Split right (${shortcutLabels.split})`} onClick={split}>
            <IconSplit />
          </button>
          <button type="button" className="icon-button" aria-label="Close pane" title={`Close pane (${shortcutLabels.closePane})`} onClick={close}>
            <IconClose />
          </button>
        </span>
      </header>
      <div className="pane__terminal" ref={host} />
    </section>
  );
}
