import { describe, expect, it } from 'vitest';
import { ApprovalBroker, type Decided } from './approvalBroker.js';
import type { PendingApproval } from '../../../shared/approvals.js';

const hostKey = {
  kind: 'host_key' as const,
  title: 'Trust host key?',
  execution_target: 'box',
  host_key: { host: 'h', port: 22, key_type: 'ssh-ed25519', fingerprint: 'SHA256:abc' },
};

describe('ApprovalBroker', () => {
  it('waits for a decision and reports the pending list as it changes', async () => {
    const seen: number[] = [];
    const decided: Array<[PendingApproval, Decided]> = [];
    const b = new ApprovalBroker(
      () => 60,
      (a, d) => decided.push([a, d]),
    );
    b.onChange((l) => seen.push(l.length));
    const p = b.request(hostKey);
    const [pending] = b.list();
    expect(pending).toMatchObject({ kind: 'host_key', execution_target: 'box' });
    b.decide({ id: pending!.id, decision: 'approve', scope: 'always' }, 'ui');
    const d = await p;
    expect(d).toMatchObject({ decision: 'approve', scope: 'always', by: 'person', decider: 'ui' });
    expect(d.waited_ms).toBeGreaterThanOrEqual(0);
    expect(seen).toEqual([1, 0]);
    expect(decided[0]![1].by).toBe('person');
  });

  it('denies when nobody answers in time', async () => {
    const b = new ApprovalBroker(() => 0.05);
    expect(await b.request(hostKey)).toMatchObject({ decision: 'deny', by: 'timeout' });
    expect(b.list()).toEqual([]);
  });

  it('refuses a decision for an unknown id', () => {
    const b = new ApprovalBroker(() => 60);
    expect(() => b.decide({ id: 'nope', decision: 'approve' })).toThrow(/no pending approval nope/);
  });

  it('denies everything still waiting on close', async () => {
    const b = new ApprovalBroker(() => 60);
    const p = b.request(hostKey);
    b.close();
    expect(await p).toMatchObject({ decision: 'deny', by: 'shutdown' });
  });
});

describe('ApprovalBroker withdrawal', () => {
  it('withdraws a pending request when its caller is gone: off the list, a late answer finds nothing', async () => {
    const decided: Decided[] = [];
    const b = new ApprovalBroker(
      () => 60,
      (_a, d) => decided.push(d),
    );
    const ac = new AbortController();
    const p = b.request(hostKey, { signal: ac.signal });
    const [pending] = b.list();
    ac.abort();
    expect(await p).toMatchObject({ decision: 'deny', by: 'withdrawn' });
    expect(b.list()).toEqual([]);
    expect(() => b.decide({ id: pending!.id, decision: 'approve' })).toThrow(/no pending approval/);
    expect(decided.map((d) => d.by)).toEqual(['withdrawn']);
  });

  it('never lists a request whose caller was already gone', async () => {
    const b = new ApprovalBroker(() => 60);
    const ac = new AbortController();
    ac.abort();
    expect(await b.request(hostKey, { signal: ac.signal })).toMatchObject({ by: 'withdrawn' });
    expect(b.list()).toEqual([]);
  });
});
