// Shown when the page's connection to the Core ends: terminals and panels stop updating, and the page dials again
// by itself (a Core restarted on the same profile keeps its port and token) until it is back.
import { useConnection } from '../client/core.js';
import { reconnectNow } from '../client/connect.js';

export function ConnectionBanner() {
  const state = useConnection((s) => s.state);
  const reason = useConnection((s) => s.reason);
  if (state !== 'closed') return null;
  return (
    <div className="banner" role="alert">
      <strong>Lost the connection to the Core</strong>
      <span>
        {reason ? ` (${reason})` : ''} — this page reconnects by itself once it is back. Start it again as you started
        it: <code>npm start</code> in the Switchboard folder (or <code>switchboard serve</code>, where the command is
        installed). A Core on another profile or with a new token prints a link of its own.
      </span>
      <button type="button" className="button button--small" onClick={reconnectNow}>
        Reconnect now
      </button>
    </div>
  );
}
