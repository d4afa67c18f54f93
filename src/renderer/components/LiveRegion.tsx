// The window's polite live region (announcer.ts fills it). Outside the app's frame, so a dialog that makes the window
// behind it inert does not silence it, and visually hidden: everything it says is on screen somewhere already.
import { createPortal } from 'react-dom';
import { useAnnouncements } from '../announcer.js';

export function LiveRegion() {
  const lines = useAnnouncements((s) => s.lines);
  // role="log": new lines are read as they are added, old ones are not read again (a status region re-reads it all).
  return createPortal(
    <div className="visually-hidden" role="log" aria-live="polite" aria-label="Announcements">
      {lines.map((l) => (
        <p key={l.id}>{l.text}</p>
      ))}
    </div>,
    document.body,
  );
}
