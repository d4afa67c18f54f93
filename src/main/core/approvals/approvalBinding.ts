// What an approval is bound to: a digest of the tool, its canonical arguments, the runtime identity, the spec and
// the content looked at. A call that no longer matches what was approved is refused (ApprovalRefused).
import { createHash } from 'node:crypto';
import type { ApprovalOutcome } from '../../../shared/approvals.js';
import { SwitchboardError } from '../../../shared/errors.js';
import type { TargetSnapshot } from '../backends/index.js';
import { specFingerprint } from '../registry/index.js';

/**
 * What the step decided about a call that may run: the outcome to show (none for safe calls) and the args bound to it.
 */
export interface Authorization {
  outcome?: ApprovalOutcome;
  /** A line the result carries after a person's approval (what the person should know of where it ran). */
  note?: string;
  /** The arguments that were judged (and approved); the dispatcher runs these and nothing else. */
  args: Readonly<Record<string, unknown>>;
  /** (tool, normalised arguments, runtime identity, spec fingerprint, content looked at) the approval is for. */
  binding: string;
}

/** An approval refusal that knows how it was decided, so the dispatcher can show it. */
export class ApprovalRefused extends SwitchboardError {
  constructor(
    readonly outcome: ApprovalOutcome,
    message: string,
    hint?: string,
  ) {
    super('approval_denied', message, hint);
  }
}

/** The binding of a call: a digest of tool, canonical arguments, runtime identity and the fingerprint of its spec. */
export function bindingOf(
  tool: string,
  args: Readonly<Record<string, unknown>>,
  identity: string,
  fingerprint: string,
  content?: string,
): string {
  return createHash('sha256')
    .update(JSON.stringify([tool, canonical(args), identity, fingerprint, ...(content ? [content] : [])]))
    .digest('hex');
}

/** Strings longer than this stand in a binding as their digest (see canonical). */
const DIGESTED_CHARS = 4096;

function canonical(value: unknown): unknown {
  // As strict, without a second copy of a write's content of some MB in the binding's JSON.
  if (typeof value === 'string' && value.length > DIGESTED_CHARS)
    return { sha256: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/**
 * Refuse unless the call about to run is the one that was approved, where it was approved: same tool and arguments,
 * same runtime identity with the same spec, and that identity still the target's current generation, not drained since.
 */
export function assertBound(
  auth: Authorization,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  now: TargetSnapshot | undefined,
  approved: TargetSnapshot,
  content?: string,
): void {
  if (!now || now.identity !== approved.identity) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target changed' },
      `refused: the approval was for ${approved.identity}, but target "${approved.name}" is ` +
        `now ${now ? now.identity : 'gone'}`,
      'approvals do not carry to another target or generation; make the call again',
    );
  }
  const fingerprint = specFingerprint(now.spec);
  if (fingerprint !== specFingerprint(approved.spec)) {
    // The registry refuses a generation with another spec; a file edited by hand is caught here.
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target spec changed' },
      `refused: the approval was for ${approved.identity} as its spec was then, and the spec has changed since`,
      'approvals do not carry to another spec; make the call again',
    );
  }
  if (now.state !== approved.state) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'target draining' },
      `refused: target "${approved.name}" began draining after the approval`,
      'register a new generation or pick another target, then make the call again',
    );
  }
  if (content !== undefined && bindingOf(tool, args, now.identity, fingerprint, content) !== auth.binding) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'content changed' },
      'refused: a file or git setting the command runs changed after the approval',
      'what runs is exactly what was approved; make the call again to have the new content judged',
    );
  }
  if (content === undefined && bindingOf(tool, args, now.identity, fingerprint) !== auth.binding) {
    throw new ApprovalRefused(
      { decision: 'refuse', by: 'binding', reason: 'arguments changed' },
      'refused: the arguments changed after the approval',
      'what runs is exactly what was approved; make the call again',
    );
  }
}

/**
 * A frozen copy of JSON arguments. Strings cannot change, so they are shared, not copied: a write's content of some MB
 * is not held twice (structuredClone copied it).
 */
export function frozenCopy<T>(value: T): T {
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  if (value && typeof value === 'object')
    return Object.freeze(Object.fromEntries(Object.entries(value).map(([k, v]) => [k, frozenCopy(v)]))) as T;
  return value;
}
