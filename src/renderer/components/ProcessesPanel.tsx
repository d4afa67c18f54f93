// Background processes of the focused pane's target, or of every target including retired identities: status, runtime,
// kill, and a live tail.
import { useEffect, useMemo, useRef, useState, type MouseEvent } from 'react';
import type { ProcessInfo } from '../../shared/api.js';
import { core, call, useConnection } from '../client/core.js';
import { useLayout, selectFocusedTarget } from '../store/layout.js';
import { useProcesses, sortProcesses } from '../store/processes.js';
import { loadProcesses } from '../store/sync.js';
import { useTargets } from '../store/targets.js';
import { shortGeneration } from '../format.js';
import { clockTime, elapsed } from '../format.js';
import { useNow } from './useNow.js';
import { IconStop } from './icons.js';

const TAIL_MAX_CHARS = 64 * 1024;

/** The selected process's output, appended to a <pre> directly: streamed text stays out of React state. */
function ProcessTail({ sessionId }: { sessionId: string }) {
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const el = pre.current;
    if (!el) return;
    el.textContent = '';
    let ready = false;
    let cancelled = false;
    const append = (text: string): void => {
      const stick = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      const next = (el.textContent ?? '') + text;
      el.textContent = next.length > TAIL_MAX_CHARS ? next.slice(-TAIL_MAX_CHARS) : next;
      if (stick) el.scrollTop = el.scrollHeight;
    };
    const off = core.on('process.output', ({ session_id, data }) => {
      if (ready && session_id === sessionId) append(data);
    });
    void call('processes.log', { session_id: sessionId, lines: 200 }).then((r) => {
      if (cancelled) return;
      ready = true;
      if (r) append(r.output);
    });
    return () => {
      cancelled = true;
      off();
    };
  }, [sessionId]);
  // biome-ignore lint/a11y/useSemanticElements: a named <pre> keeps the output's spacing
  // biome-ignore lint/a11y/noNoninteractiveTabindex: it takes focus so the output scrolls by keyboard
  return <pre className="tail mono" ref={pre} role="group" aria-label="Process output" tabIndex={0} />;
}

/**
 * The process's runtime identity, marked retired when that generation is no longer its target's (removed, replaced)
 * and draining while it drains. A target that is only unreachable for now (its connection dropped and is coming back)
 * is still the same identity: its health is the sidebar's to show, not a reason to call its processes retired.
 */
function IdentityCell({ p }: { p: ProcessInfo }) {
  const state = useTargets((s) =>
    s.loaded
      ? (s.list.find((t) => t.name === p.execution_target && t.generation === p.generation)?.state ?? 'gone')
      : 'unknown',
  );
  // What the page last heard while it has no Core says nothing of now.
  const offline = useConnection((s) => s.state === 'closed');
  const label =
    offline || state === 'unknown' ? '' : state === 'gone' ? 'retired' : state === 'draining' ? 'draining' : '';
  return (
    <td
      className="mono cell-target col-ptarget"
      title={`${p.execution_target}#${p.generation}${label ? ` (${label})` : ''}`}
    >
      {label && <span className="tag tag--retired">{label}</span>}
      {p.execution_target}
      <span className="dim">#{shortGeneration(p.generation)}</span>
    </td>
  );
}

function ProcessRow({
  p,
  now,
  selected,
  onSelect,
  all,
}: {
  p: ProcessInfo;
  now: number;
  selected: boolean;
  onSelect(): void;
  all: boolean;
}) {
  const kill = (e: MouseEvent): void => {
    e.stopPropagation();
    void call('processes.kill', { session_id: p.session_id }).then((r) => r && useProcesses.getState().upsert([r]));
  };
  return (
    <tr
      className={`row${selected ? ' row--selected' : ''}`}
      aria-selected={selected}
      onClick={onSelect}
      aria-label={p.command}
    >
      <td>
        <span className={`badge badge--proc-${p.status}`} title={p.reason}>
          {p.status}
        </span>
      </td>
      {all && <IdentityCell p={p} />}
      <td className="mono cell-command" title={`${p.command}\n${p.cwd}`}>
        {p.command}
      </td>
      <td className="mono dim col-started">{clockTime(p.started_at)}</td>
      <td className="mono dim num col-dur">{elapsed(p.started_at, p.ended_at, now)}</td>
      <td className="mono dim num col-exit">{p.exit_code ?? ''}</td>
      <td className="cell-action">
        {p.status === 'running' && (
          <button
            type="button"
            className="button button--danger button--small"
            aria-label={`Kill ${p.command}`}
            title="Kill this process"
            onClick={kill}
          >
            <IconStop size={10} /> Kill
          </button>
        )}
      </td>
    </tr>
  );
}

export function ProcessesPanel() {
  const focusedTarget = useLayout(selectFocusedTarget);
  const [all, setAll] = useState(false);
  const target = all ? undefined : focusedTarget;
  const byId = useProcesses((s) => s.byId);
  const list = useMemo(
    () => sortProcesses(Object.values(byId).filter((p) => all || p.execution_target === target)),
    [byId, target, all],
  );
  const [selected, setSelected] = useState<string>();
  const running = list.filter((p) => p.status === 'running').length;
  const now = useNow(running > 0);

  useEffect(() => {
    if (all || target) void loadProcesses(target);
  }, [target, all]);
  const shown = list.some((p) => p.session_id === selected) ? selected : undefined;

  const where = all ? ' on any target' : target ? ` on ${target}` : '';
  return (
    <section
      className="panel panel--processes"
      aria-labelledby="processes-heading"
      data-region="processes"
      tabIndex={-1}
    >
      <div className="panel__header">
        <h2 id="processes-heading">Processes</h2>
        {target && <span className="chip chip--target mono">{target}</span>}
        <button
          type="button"
          className={`chip chip--toggle${all ? ' chip--on' : ''}`}
          aria-pressed={all}
          title="Show the processes of every target, including drained and removed ones"
          onClick={() => setAll((a) => !a)}
        >
          All targets
        </button>
        <span className="count" title={`${running} running`}>
          {running > 0 ? `${running} running` : list.length}
        </span>
      </div>
      <div className={`panel__body${shown ? ' panel__body--split' : ''}`}>
        <div className="scroll">
          {list.length === 0 ? (
            <p className="empty">
              No background processes{where}. Agents start them with <code>terminal</code> and{' '}
              <code>background: true</code>.
            </p>
          ) : (
            <table className={`grid${all ? ' grid--all' : ''}`} aria-label="Processes">
              <thead>
                <tr>
                  <th className="w-status">Status</th>
                  {all && <th className="w-ptarget col-ptarget">Target</th>}
                  <th>Command</th>
                  <th className="w-time col-started">Started</th>
                  <th className="w-dur col-dur">Runtime</th>
                  <th className="w-exit col-exit">Exit</th>
                  <th className="w-action">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((p) => (
                  <ProcessRow
                    key={p.session_id}
                    p={p}
                    now={now}
                    selected={p.session_id === shown}
                    all={all}
                    onSelect={() => setSelected(p.session_id === shown ? undefined : p.session_id)}
                  />
                ))}
              </tbody>
            </table>
          )}
        </div>
        {shown && <ProcessTail sessionId={shown} />}
      </div>
    </section>
  );
}
