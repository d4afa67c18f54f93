// The bar over a pane whose connection dropped: the Core's countdown to its next attempt (or the attempt under way),
// why the last one failed, "Reconnect now" and "Cancel".
import { useEffect, useState } from 'react';
import type { PaneReconnect } from '../../shared/api.js';
import { sessions } from '../terminal/sessions.js';

/** Whole seconds left until `at` (ms since the epoch), never below 0. */
export function secondsLeft(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

export function ReconnectBar({ paneId, target, state }: { paneId: string; target: string; state: PaneReconnect }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (state.state !== 'waiting') return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [state]);
  const waiting = state.state === 'waiting' && state.retry_at !== undefined;
  const line = waiting
    ? `connection lost — reconnecting in ${secondsLeft(state.retry_at ?? now, now)} s`
    : `connection lost — reconnecting to ${target}…`;
  return (
    <div className="reconnect-bar" role="status" aria-label="Reconnecting">
      <span className="reconnect-bar__text">
        <strong>{line}</strong>
        {state.error && (
          <span className="reconnect-bar__error" title={state.error}>
            {state.attempt > 1 ? `attempt ${state.attempt - 1}: ` : ''}
            {state.error}
          </span>
        )}
      </span>
      <span className="reconnect-bar__actions">
        <button
          type="button"
          className="button button--small"
          disabled={!waiting}
          onClick={() => {
            sessions.get(paneId)?.reconnect('now');
            sessions.get(paneId)?.focus();
          }}
        >
          Reconnect now
        </button>
        <button
          type="button"
          className="button button--small"
          onClick={() => sessions.get(paneId)?.reconnect('cancel')}
        >
          Cancel
        </button>
      </span>
    </div>
  );
}
