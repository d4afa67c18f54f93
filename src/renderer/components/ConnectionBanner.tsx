// Shown when the page's connection to the Core ends: terminals and panels stop updating until it is reopened.
import { useConnection } from '../client/core.js';

export function ConnectionBanner() {
  const state = useConnection((s) => s.state);
  const reason = useConnection((s) => s.reason);
  if (state !== 'closed') return null;
  return (
    <div className="banner" role="alert">
      <strong>Lost the connection to the Core</strong>
      <span>{reason ? ` (${reason})` : ''} — restart <code>switchboard serve</code> and open the link it shows on its terminal (or run <code>switchboard open</code>).</span>
      <button type="button" className="button button--small" onClick={() => window.location.reload()}>Reload</button>
    </div>
  );
}
