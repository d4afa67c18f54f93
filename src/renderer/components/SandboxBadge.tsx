// A target's sandbox mark: "unsandboxed" (a warning, its reason as the description) or a quiet "sandboxed"; nothing
// when unknown.
import { useId } from 'react';
import type { SandboxInfo } from '../../shared/targets.js';
import { sandboxMark } from '../sandboxView.js';

export function SandboxBadge({ sandbox, className = '' }: { sandbox: SandboxInfo | undefined; className?: string }) {
  const id = useId();
  const mark = sandboxMark(sandbox);
  if (!mark) return null;
  return (
    <>
      <span
        className={`badge badge--${mark.state} ${className}`}
        role="note"
        aria-label={mark.label}
        aria-describedby={id}
        title={mark.description}
      >
        {mark.label}
      </span>
      <span id={id} className="visually-hidden">
        {mark.description}
      </span>
    </>
  );
}
