// Holds pending approvals until a person decides in the UI or the CLI; silence is not consent: a timeout denies.
import { randomUUID } from 'node:crypto';
import { SwitchboardError } from '../../../shared/errors.js';
import type { ApprovalDecision, ApprovalScope, PendingApproval } from '../../../shared/approvals.js';
import type { PersonWay } from '../../../shared/personWay.js';

export interface Decided {
  decision: 'approve' | 'deny';
  scope: ApprovalScope;
  reason?: string;
  /** Who decided: a person (ui/cli), the timeout, shutdown, or nobody because the caller went away first. */
  by: 'person' | 'timeout' | 'shutdown' | 'withdrawn';
  /** Where the person answered (ui or cli), when a person did. */
  decider?: string;
  /** How that person was known (their connection's, never their own word): window, link or terminal. */
  person?: PersonWay;
  /** How long the request was pending. */
  waited_ms: number;
}

type Settled = Omit<Decided, 'waited_ms'>;

/** Who decided, as the audit log and an outcome say it: where a person answered (ui, cli), or what decided instead. */
export function decidedBy(d: Pick<Decided, 'by' | 'decider'>): string {
  return d.by === 'person' ? (d.decider ?? 'person') : d.by;
}

interface Pending {
  approval: PendingApproval;
  resolve: (d: Decided) => void;
  timer: NodeJS.Timeout;
  /** Stops listening to the caller's signal. */
  unlink: () => void;
}

export type ApprovalRequest = Omit<PendingApproval, 'id' | 'created_at' | 'expires_at'>;

export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(list: PendingApproval[]) => void>();

  constructor(
    private readonly timeoutSec: () => number,
    private readonly onDecided?: (a: PendingApproval, d: Decided) => void,
  ) {}

  onChange(listener: (list: PendingApproval[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): PendingApproval[] {
    return [...this.pending.values()].map((p) => p.approval);
  }

  /**
   * Ask a person; resolves when they decide or the timeout denies. When `signal` aborts (the caller is gone:
   * its connection closed, its call was cancelled) the request is withdrawn: it leaves the pending list and
   * resolves as a denial nobody made, so a late answer finds nothing to decide.
   */
  request(
    req: ApprovalRequest,
    opts: { signal?: AbortSignal | undefined; onPending?: (approval: PendingApproval) => void } = {},
  ): Promise<Decided> {
    const withdrawn: Settled = {
      decision: 'deny',
      scope: 'once',
      by: 'withdrawn',
      reason: 'the caller went away before anyone decided',
    };
    if (opts.signal?.aborted) return Promise.resolve({ ...withdrawn, waited_ms: 0 });
    const now = Date.now();
    const timeoutMs = this.timeoutSec() * 1000;
    const approval: PendingApproval = {
      ...req,
      id: randomUUID().slice(0, 8),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + timeoutMs).toISOString(),
    };
    return new Promise((resolve) => {
      const timer = setTimeout(
        () =>
          this.settle(approval.id, {
            decision: 'deny',
            scope: 'once',
            by: 'timeout',
            reason: `no one answered within ${this.timeoutSec()} s`,
          }),
        timeoutMs,
      );
      const onAbort = (): void => this.settle(approval.id, withdrawn);
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      const unlink = (): void => opts.signal?.removeEventListener('abort', onAbort);
      this.pending.set(approval.id, { approval, resolve, timer, unlink });
      this.emit();
      opts.onPending?.(approval);
    });
  }

  /** A person's answer; `decider` says where it came from (ui, cli), `person` how that person was known. */
  decide(d: ApprovalDecision, decider?: string, person?: PersonWay): { id: string; decision: 'approve' | 'deny' } {
    if (!this.pending.has(d.id)) {
      throw new SwitchboardError(
        'bad_request',
        `no pending approval ${d.id}`,
        'list them with `switchboard approvals list`',
      );
    }
    const reason = d.reason?.replace(/\s+/g, ' ').trim();
    this.settle(d.id, {
      decision: d.decision,
      scope: d.scope ?? 'once',
      by: 'person',
      ...(decider ? { decider } : {}),
      ...(person ? { person } : {}),
      ...(reason ? { reason } : {}),
    });
    return { id: d.id, decision: d.decision };
  }

  private settle(id: string, settled: Settled): void {
    const p = this.pending.get(id);
    if (!p) return;
    const decided: Decided = { ...settled, waited_ms: Math.max(0, Date.now() - Date.parse(p.approval.created_at)) };
    clearTimeout(p.timer);
    p.unlink();
    this.pending.delete(id);
    this.onDecided?.(p.approval, decided);
    p.resolve(decided);
    this.emit();
  }

  private emit(): void {
    const list = this.list();
    for (const l of this.listeners) l(list);
  }

  /** Deny everything still waiting (the Core is closing). */
  close(): void {
    for (const id of [...this.pending.keys()])
      this.settle(id, { decision: 'deny', scope: 'once', by: 'shutdown', reason: 'Switchboard is shutting down' });
  }
}
