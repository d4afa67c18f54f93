// The Activity feed: every tool call from agents, the CLI and the UI (and what the window did), newest first; a row
// opens to show its details.
import { memo, useCallback, useState, type KeyboardEvent } from 'react';
import type { ActivityEntry } from '../../shared/api.js';
import type { ApprovalOutcome } from '../../shared/approvals.js';
import { useActivity } from '../store/activity.js';
import { callOutcome, clockTime, duration, shortGeneration } from '../format.js';
import { IconClose } from './icons.js';

/** "approved for the session by a person after 4.2 s", "denied by timeout: no one answered …". */
export function approvalText(a: ApprovalOutcome): string {
  const verb = a.decision === 'approve' ? 'approved' : a.decision === 'deny' ? 'denied' : 'refused';
  const scope =
    a.decision === 'approve' && a.scope
      ? a.scope === 'once'
        ? ' once'
        : a.scope === 'session'
          ? ' for the session'
          : ' always'
      : '';
  const waited = a.waited_ms !== undefined ? ` after ${duration(a.waited_ms)}` : '';
  return `${verb}${scope} by ${a.by}${waited}${a.reason ? `: ${a.reason}` : ''}`;
}

/**
 * The open row's details, in place of the list (the close button, or Escape, brings it back): first what happened —
 * the outcome with its exit code, the tool, where, how long — then the arguments, the approval and what it returned.
 */
function Details({ e, onClose }: { e: ActivityEntry; onClose(): void }) {
  const outcome = callOutcome(e);
  const where = e.execution_target
    ? `${e.execution_target}${e.generation ? `#${shortGeneration(e.generation)}` : ''}`
    : '';
  return (
    <section
      className="activity-details"
      aria-label={`Details of ${e.tool}`}
      onKeyDown={(k) => {
        if (k.key === 'Escape') onClose();
      }}
    >
      <div className="activity-details__head">
        <span className={`badge badge--${outcome.kind}`}>{outcome.label}</span>
        <span className="mono activity-details__tool">{e.tool}</span>
        {where && <span className="mono activity-details__where">on {where}</span>}
        <span className="dim activity-details__when">
          {e.status === 'running' ? 'running' : duration(e.duration_ms)} · {e.client} ·{' '}
          {new Date(e.time).toLocaleString()}
        </span>
        <button
          type="button"
          className="icon-button activity-details__close"
          aria-label="Close details"
          onClick={onClose}
        >
          <IconClose size={11} />
        </button>
      </div>
      <dl className="details">
        {e.exit_code !== undefined && (
          <>
            <dt>Exit code</dt>
            <dd className={`mono${outcome.kind === 'exit' ? ' details__error' : ''}`}>
              {e.exit_code ?? 'none (the command was stopped)'}
            </dd>
          </>
        )}
        {e.error && (
          <>
            <dt>Error</dt>
            <dd className="details__error">{e.error}</dd>
          </>
        )}
        <dt>Arguments</dt>
        <dd className="mono details__args">{e.summary || '—'}</dd>
        {e.approval && (
          <>
            <dt>Approval</dt>
            <dd>{approvalText(e.approval)}</dd>
          </>
        )}
        {e.result && (
          <>
            <dt>Returned</dt>
            <dd>
              {/* biome-ignore lint/a11y/useSemanticElements: a named <pre> keeps the result's spacing */}
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it takes focus: a long result scrolls by keyboard */}
              <pre className="mono details__result" role="group" aria-label="Returned" tabIndex={0}>
                {e.result}
              </pre>
            </dd>
          </>
        )}
      </dl>
    </section>
  );
}

const ActivityRow = memo(function ActivityRow({
  e,
  open,
  onToggle: toggle,
}: {
  e: ActivityEntry;
  open: boolean;
  onToggle(id: string): void;
}) {
  const onToggle = (): void => toggle(e.id);
  const outcome = callOutcome(e);
  const onKey = (k: KeyboardEvent): void => {
    if (k.key !== 'Enter' && k.key !== ' ') return;
    k.preventDefault();
    onToggle();
  };
  return (
    <tr
      className={`row row--${outcome.kind} row--openable${open ? ' row--open' : ''}`}
      tabIndex={0}
      // Which row's details show below (aria-expanded belongs to treegrid rows, not a table's).
      aria-current={open || undefined}
      onClick={onToggle}
      onKeyDown={onKey}
      aria-label={`${e.tool} ${e.execution_target ?? ''} ${outcome.label}`}
    >
      <td className="mono dim col-time">{clockTime(e.time)}</td>
      <td className="col-client">
        <span className={`tag tag--client-${e.client}`}>{e.client}</span>
      </td>
      <td className="mono cell-tool">{e.tool}</td>
      <td className="mono cell-target col-target">{e.execution_target ?? '—'}</td>
      <td className="mono cell-summary" title={e.error ? `${e.summary}\n${e.error}` : e.summary}>
        {e.summary}
        {e.error && <span className="cell-error"> — {e.error}</span>}
      </td>
      <td>
        <span className={`badge badge--${outcome.kind}`} title={e.approval ? approvalText(e.approval) : undefined}>
          {outcome.label}
        </span>
      </td>
      <td className="mono dim num col-dur">{duration(e.duration_ms)}</td>
    </tr>
  );
});

export function ActivityFeed() {
  const entries = useActivity((s) => s.entries);
  const [open, setOpen] = useState<string>();
  // One stable callback, so a new entry re-renders its own row, not every row.
  const toggle = useCallback((id: string) => setOpen((o) => (o === id ? undefined : id)), []);
  const running = entries.filter((e) => e.status === 'running').length;
  const openEntry = open ? entries.find((e) => e.id === open) : undefined;
  return (
    <section className="panel panel--activity" aria-labelledby="activity-heading" data-region="activity" tabIndex={-1}>
      <div className="panel__header">
        <h2 id="activity-heading">Activity</h2>
        <span className="count">{running > 0 ? `${running} running · ${entries.length}` : entries.length}</span>
      </div>
      <div className={`panel__body${openEntry ? ' panel__body--split' : ''}`}>
        <div className="scroll">
          {entries.length === 0 ? (
            <p className="empty">
              No tool calls yet. Calls from agents (MCP), <code>switchboard call</code> and this window appear here.
            </p>
          ) : (
            <table className="grid" aria-label="Activity feed">
              <thead>
                <tr>
                  <th className="w-time col-time">Time</th>
                  <th className="w-client col-client">Client</th>
                  <th className="w-tool">Tool</th>
                  <th className="w-target col-target">Target</th>
                  <th>Summary</th>
                  <th className="w-status">Status</th>
                  <th className="w-dur col-dur">Duration</th>
                </tr>
              </thead>
              <tbody>
                {entries
                  .slice()
                  .reverse()
                  .map((e) => (
                    <ActivityRow key={e.id} e={e} open={open === e.id} onToggle={toggle} />
                  ))}
              </tbody>
            </table>
          )}
        </div>
        {openEntry && <Details e={openEntry} onClose={() => setOpen(undefined)} />}
      </div>
    </section>
  );
}
