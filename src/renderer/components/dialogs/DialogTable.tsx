// A dialog's list as a table (the rules, the plugins): scrolls inside the dialog; a line of its own when empty; and
// Done.
import type { ReactNode } from 'react';

export function DialogTable({
  label,
  className,
  columns,
  empty,
  children,
}: {
  label: string;
  className: string;
  /** Header cells; the last may be an actions column, named for screen readers only. */
  columns: ReactNode[];
  /** Shown instead of the table when it has no rows (or is still loading). */
  empty: string | undefined;
  children: ReactNode;
}) {
  if (empty !== undefined) return <p className="empty rules__empty">{empty}</p>;
  return (
    <div className="rules__scroll">
      <table className={`grid ${className}`} aria-label={label}>
        <thead>
          <tr>
            {columns.map((c, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a table's columns are fixed; a column is its place
              <th key={i}>{c}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export function DoneActions({ onDone }: { onDone(): void }) {
  return (
    <div className="modal__actions">
      <button type="button" className="button button--primary" data-autofocus onClick={onDone}>
        Done
      </button>
    </div>
  );
}
