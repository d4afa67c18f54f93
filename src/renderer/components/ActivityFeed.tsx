// The Activity feed: every tool call from agents, the CLI and the UI, newest first, updated as calls finish.
import { memo } from 'react';
import type { ActivityEntry } from '../../shared/api.js';
import { useActivity } from '../store/activity.js';
import { clockTime, duration } from '../format.js';

const ActivityRow = memo(function ActivityRow({ e }: { e: ActivityEntry }) {
  return (
    <tr className={`row row--${e.status}`}>
      <td className="mono dim col-time">{clockTime(e.time)}</td>
      <td className="col-client"><span className={`tag tag--client-${e.client}`}>{e.client}</span></td>
      <td className="mono cell-tool">{e.tool}</td>
      <td className="mono cell-target col-target">{e.execution_target ?? '—'}</td>
      <td className="mono cell-summary" title={e.error ? `${e.summary}\n${e.error}` : e.summary}>
        {e.summary}
        {e.error && <span className="cell-error"> — {e.error}</span>}
      </td>
      <td><span className={`badge badge--${e.status}`}>{e.status}</span></td>
      <td className="mono dim num col-dur">{duration(e.duration_ms)}</td>
    </tr>
  );
});

export function ActivityFeed() {
  const entries = useActivity((s) => s.entries);
  const running = entries.filter((e) => e.status === 'running').length;
  return (
    <section className="panel panel--activity" aria-labelledby="activity-heading" data-region="activity" tabIndex={-1}>
      <div className="panel__header">
        <h2 id="activity-heading">Activity</h2>
        <span className="count">{running > 0 ? `${running} running · ${entries.length}` : entries.length}</span>
      </div>
      <div className="panel__body">
        <div className="scroll">
          {entries.length === 0 ? (
            <p className="empty">No tool calls yet. Calls from agents (MCP), <code>switchboard call</code> and this window appear here.</p>
          ) : (
            <table className="grid" aria-label="Activity feed">
              <thead>
                <tr>
                  <th className="w-time col-time">Time</th><th className="w-client col-client">Client</th><th className="w-tool">Tool</th>
                  <th className="w-target col-target">Target</th><th>Summary</th><th className="w-status">Status</th><th className="w-dur col-dur">Duration</th>
                </tr>
              </thead>
              <tbody>
                {entries.slice().reverse().map((e) => <ActivityRow key={e.id} e={e} />)}
              </tbody>
            </table>
          )}
        </div>
      </div>
    </section>
  );
}
