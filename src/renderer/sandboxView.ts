// Where agent work runs, in the window's words: the sandbox mark of a target, and what "Approve command" says about it.
import type { ApprovalScope, PendingApproval } from '../shared/approvals.js';
import type { SandboxInfo } from '../shared/targets.js';

export interface SandboxMark {
  state: SandboxInfo['state'];
  /** The badge's text. */
  label: string;
  /** Its tooltip and accessible description. */
  description: string;
}

const kindName = { bubblewrap: 'a bubblewrap', seatbelt: 'a Seatbelt' } as const;

/** Where a container's commands are not held in, they act with the powers of the host it runs on. */
const containerHost = 'with the powers of the host its container runs on';

/** Whose powers unsandboxed work has: the person's here, or an SSH account's on its host. */
const powers = (s: SandboxInfo | undefined): string =>
  s?.host ? `the full powers of ${s.host} on its host` : 'your own powers on this machine';

const onHost = (s: SandboxInfo | undefined): string => (s?.host ? ` on ${s.host}` : '');

/** The mark a target shows; none for a target that says nothing about a sandbox (plugins, a container not seen yet). */
export function sandboxMark(s: SandboxInfo | undefined): SandboxMark | undefined {
  if (!s) return undefined;
  if (s.kind === 'container') {
    return s.state === 'unsandboxed'
      ? {
          state: 'unsandboxed',
          label: 'unsandboxed',
          description: `Agent commands here run ${containerHost}${s.reason ? `: ${s.reason}` : ''}`,
        }
      : {
          state: 'sandboxed',
          label: 'sandboxed',
          description: `Agent commands here run in ${s.confinement ?? 'a container'}`,
        };
  }
  if (s.state === 'unsandboxed') {
    return {
      state: 'unsandboxed',
      label: 'unsandboxed',
      description: `Agent commands here run with ${powers(s)}${s.reason ? `: ${s.reason}` : ''}`,
    };
  }
  const network = s.network === true ? ', with network' : s.network === false ? ', without network' : '';
  return {
    state: 'sandboxed',
    label: 'sandboxed',
    description: `Agent commands here run in ${s.kind ? kindName[s.kind] : 'an OS'} sandbox${onHost(s)}${network}`,
  };
}

const what = {
  command: { runs: 'the command runs', asks: 'run this one command' },
  path: { runs: 'the file is changed', asks: 'change this one file' },
  code: { runs: 'the code runs', asks: 'run this code' },
} as const;

/** What the dialog says plainly about where this call would run, one sentence each (none for a sandboxed one). */
export function approvalSandboxNotes(
  a: Pick<PendingApproval, 'unsandboxed' | 'outside_sandbox' | 'subject' | 'private_tmp' | 'sandbox'>,
): string[] {
  const w = what[a.subject ?? 'command'];
  const notes: string[] = [];
  if (a.outside_sandbox)
    notes.push(`The agent asks to ${w.asks} outside its sandbox: it would run with ${powers(a.sandbox)}.`);
  else if (a.sandbox?.kind === 'container') notes.push(containerNote(a.sandbox, w.runs));
  else if (a.unsandboxed) notes.push(`This target is unsandboxed: ${w.runs} with ${powers(a.sandbox)}.`);
  if (a.private_tmp)
    notes.push(
      `/tmp here is this target's own private /tmp in its sandbox, ` +
        `not ${a.sandbox?.host ? 'its host' : 'this machine'}'s /tmp.`,
    );
  if (a.outside_sandbox)
    notes.push(
      'It runs in a fresh shell with your environment: variables the agent exported in its sandbox are not carried.',
    );
  return notes;
}

/** A container target's note: what holds the call in, or why nothing does. */
function containerNote(s: SandboxInfo, runs: string): string {
  if (s.state === 'unsandboxed')
    return `This target is unsandboxed: ${runs} ${containerHost}${s.reason ? `, since ${s.reason}` : ''}.`;
  return `${runs[0]?.toUpperCase()}${runs.slice(1)} in ${s.confinement ?? 'a container'}.`;
}

/** The approvals a person may give: a request to leave the sandbox is approved once at most, never for longer. */
export function approvalScopes(a: Pick<PendingApproval, 'outside_sandbox'>): ApprovalScope[] {
  return a.outside_sandbox ? ['once'] : ['once', 'session', 'always'];
}
