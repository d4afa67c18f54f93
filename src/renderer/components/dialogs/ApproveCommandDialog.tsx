// "Approve command": an agent's dangerous call waits in the Core until a person decides here; one request per dialog.
import { useMemo, useState } from 'react';
import type { ApprovalScope, PendingApproval } from '../../../shared/approvals.js';
import { call } from '../../client/core.js';
import { useApprovals } from '../../store/approvals.js';
import { countdown, highlightSegments, maskedSpans } from '../../highlight.js';
import { clockTime, shortGeneration } from '../../format.js';
import { useNow } from '../useNow.js';
import { Modal } from './Modal.js';
import { askForNotices, canAskForNotices } from '../../approvalNotices.js';
import { approvalSandboxNotes, approvalScopes } from '../../sandboxView.js';
import { MAX_REDACTED_CHARS, redact } from '../../../shared/redact.js';

const subjectWord = { command: 'command', path: 'file', code: 'code' } as const;

function lead(a: PendingApproval): string {
  const who = a.client ? `An agent (${a.client})` : 'An agent';
  if (a.subject === 'path') return `${who} wants to change this file on`;
  if (a.subject === 'code') return `${who} wants to run this code on`;
  return `${who} wants to run this command on`;
}

/**
 * The command with the parts the policy flagged marked, so the eye goes to what is dangerous. A command that holds a
 * secret shows masked (the redactor of audit.jsonl and Activity, so a shared screen or a screenshot keeps it) until
 * the person asks to see it; the flagged parts stay marked in the masked text (maskedSpans).
 */
function Flagged({
  a,
  masked,
  shown,
  onShow,
}: {
  a: PendingApproval;
  masked: string;
  shown: boolean;
  onShow: (show: boolean) => void;
}) {
  const text = a.command ?? '';
  const secret = masked !== text;
  const cut = text.length > MAX_REDACTED_CHARS;
  return (
    <div className="approve__commandbox">
      {/* biome-ignore lint/a11y/useSemanticElements: a named <pre> keeps the command's spacing */}
      <pre
        className="approve__command"
        role="group"
        aria-label={`${subjectWord[a.subject ?? 'command']} to approve`}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: it takes focus so a long command scrolls by keyboard
        tabIndex={0}
      >
        {/* The dialog's description: the command itself (the <pre>'s own name would stand in for its text). */}
        <span id="approve-command">
          {(secret && !shown
            ? highlightSegments(masked, maskedSpans(text, masked, a.highlights))
            : highlightSegments(text, a.highlights)
          ).map((s, i) =>
            // The segments are recomputed whole from the text and never move: a segment's place is its identity.
            s.flagged ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <mark key={i} className="approve__flag">
                {s.text}
              </mark>
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <span key={i}>{s.text}</span>
            ),
          )}
        </span>
      </pre>
      {secret && (
        <button
          type="button"
          className="link-button approve__reveal"
          aria-pressed={shown}
          onClick={() => onShow(!shown)}
          title={
            shown
              ? 'Mask the secrets again'
              : cut
                ? 'The command is long: its start is shown, masked; show all of it'
                : 'The command holds what looks like a secret; show it in full'
          }
        >
          {shown ? 'Hide secrets' : cut ? 'Show in full' : 'Show secrets'}
        </button>
      )}
    </div>
  );
}

/** Browsers prompt for notifications only on a click, so the offer sits where the person already is. */
function NoticeOffer() {
  const [offer, setOffer] = useState(canAskForNotices);
  if (!offer) return null;
  return (
    <button
      type="button"
      className="link-button approve__notice"
      onClick={() => void askForNotices().finally(() => setOffer(false))}
    >
      Notify me of requests while Switchboard is in the background
    </button>
  );
}

export function ApproveCommandDialog({
  approval: a,
  position,
  total,
}: {
  approval: PendingApproval;
  position: number;
  total: number;
}) {
  const now = useNow(true, 500);
  const [reason, setReason] = useState('');
  // Which request the person chose to see in full: a new request shows masked again.
  const [shownFor, setShownFor] = useState<string | undefined>(undefined);
  const shown = shownFor === a.id;
  // A huge command is masked by its first part only (the rules' time grows faster than the text): the rest is shown on
  // asking.
  const masked = useMemo(
    () => redact(a.command ?? '', { whole: (a.command ?? '').length <= MAX_REDACTED_CHARS }),
    [a.command],
  );
  const answered = useApprovals((s) => s.answered.has(a.id));
  const left = Date.parse(a.expires_at) - now;
  const notes = approvalSandboxNotes(a);
  const scopes = approvalScopes(a);

  const decide = (decision: 'approve' | 'deny', scope?: ApprovalScope): void => {
    if (useApprovals.getState().answered.has(a.id)) return;
    useApprovals.getState().markAnswered(a.id);
    const why = reason.trim();
    void call('approvals.decide', {
      id: a.id,
      decision,
      ...(scope ? { scope } : {}),
      ...(decision === 'deny' && why ? { reason: why } : {}),
    });
  };

  return (
    <Modal
      title="Approve command"
      unasked
      onCancel={() => decide('deny')}
      width={620}
      // Read out when the dialog takes the keyboard: who asks, where, and the command itself (masked as shown).
      describedBy={notes.length ? 'approve-sandbox approve-lead approve-command' : 'approve-lead approve-command'}
    >
      <div className="approve__queue">
        {total > 1 && (
          <span className="approve__position" role="note" aria-label={`Request ${position} of ${total}`}>
            {position} of {total}
          </span>
        )}
        <span
          className={`approve__timer${left < 15_000 ? ' approve__timer--low' : ''}`}
          role="timer"
          aria-label={`Denied automatically in ${countdown(left)}`}
          title={`With no answer the call is denied at ${clockTime(a.expires_at)}`}
        >
          denies in {countdown(left)}
        </span>
      </div>
      {notes.length > 0 && (
        <div
          className={`approve__sandbox${a.outside_sandbox ? ' approve__sandbox--outside' : ''}`}
          id="approve-sandbox"
          role="note"
          aria-label="Where it runs"
        >
          {notes.map((n) => (
            <p key={n}>{n}</p>
          ))}
        </div>
      )}
      <p className="form__note approve__lead" id="approve-lead">
        {lead(a)} <strong className="approve__target">{a.execution_target}</strong>:
      </p>
      <Flagged a={a} masked={masked} shown={shown} onShow={(show) => setShownFor(show ? a.id : undefined)} />
      {a.reasons && a.reasons.length > 0 && (
        <ul className="approve__reasons" aria-label="Why it asks">
          {a.reasons.map((r) => (
            <li key={r}>{shown ? r : redact(r)}</li>
          ))}
        </ul>
      )}
      <dl className="approve__details">
        <dt>Target</dt>
        <dd>
          {a.execution_target}
          {a.generation && (
            <span className="dim" title={`generation ${a.generation}`}>
              {' '}
              · gen {shortGeneration(a.generation)}
            </span>
          )}
          {a.backend && <span className="dim"> · {a.backend}</span>}
        </dd>
        {a.cwd && (
          <>
            <dt>Directory</dt>
            <dd className="mono" title={a.cwd}>
              {a.cwd}
            </dd>
          </>
        )}
        <dt>Tool</dt>
        <dd className="mono">{a.tool ?? '—'}</dd>
        <dt>Asked by</dt>
        <dd>
          {a.client ?? 'unknown'} <span className="dim">at {clockTime(a.created_at)}</span>
        </dd>
      </dl>
      <label className="field approve__reason">
        <span>Reason for denying (sent to the agent)</span>
        <input
          type="text"
          value={reason}
          maxLength={2000}
          placeholder="optional"
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setReason(e.target.value)}
          onKeyDown={(e) => {
            if (e.key !== 'Enter') return;
            e.preventDefault();
            decide('deny');
          }}
        />
      </label>
      <NoticeOffer />
      <div className="modal__actions approve__actions">
        <button
          type="button"
          className="button button--danger approve__deny"
          data-autofocus
          disabled={answered}
          onClick={() => decide('deny')}
        >
          Deny
        </button>
        <span className="approve__spacer" />
        <button
          type="button"
          className="button"
          disabled={answered}
          onClick={() => decide('approve', 'once')}
          title="Run it this time; the same call asks again"
        >
          Approve once
        </button>
        {/* Leaving the sandbox is granted one call at a time: no session, no rule. */}
        {scopes.includes('session') && (
          <button
            type="button"
            className="button"
            disabled={answered}
            onClick={() => decide('approve', 'session')}
            title={
              `Don't ask again for this command on ${a.execution_target} (this generation) until Switchboard ` +
              `restarts`
            }
          >
            Approve for session
          </button>
        )}
        {scopes.includes('always') && (
          <button
            type="button"
            className="button"
            disabled={answered}
            onClick={() => decide('approve', 'always')}
            title={
              `Keep a rule: this command pattern on ${a.execution_target} never asks again (revocable under ` +
              `Approval rules)`
            }
          >
            Always allow
          </button>
        )}
      </div>
    </Modal>
  );
}
