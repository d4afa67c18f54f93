import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog } from './audit.js';
import { approvalAuditRecord } from '../approvals/index.js';
import { summarizeArgs } from '../dispatch/index.js';
import type { PendingApproval } from '../../../shared/approvals.js';
import { writeFileTool } from '../tools/index.js';

describe('summarizeArgs', () => {
  it('summarizes a write without its content', () => {
    expect(summarizeArgs(writeFileTool, { path: 'a.env', content: 'SECRET=1' })).toBe('a.env (8 chars)');
  });
});

describe('AuditLog.write', () => {
  it(
    'redacts free text in any field (a deny reason, ' + 'a field added later); names and ids are kept as given',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'sb-audit-'));
      try {
        const log = new AuditLog(home);
        log.write({
          time: 't',
          kind: 'approval',
          client: 'ui',
          tool: 'terminal',
          outcome: 'deny',
          reason: 'no: curl -u admin:ReasonPw1 is not ok',
          detail: 'GH_PAT=DetailPat2',
        });
        await log.close();
        const line = readFileSync(join(home, 'audit.jsonl'), 'utf8');
        expect(line).not.toContain('ReasonPw1');
        expect(line).not.toContain('DetailPat2');
        expect(line).toContain('"tool":"terminal"');
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});

describe('approvalAuditRecord', () => {
  const hostKey: PendingApproval = {
    id: 'k1',
    kind: 'host_key',
    title: 'Unknown host key',
    execution_target: 'compute',
    created_at: 't0',
    expires_at: 't1',
    host_key: { host: 'compute.example', port: 22, fingerprint: 'SHA256:abc', key_type: 'ssh-ed25519' },
  } as PendingApproval;
  const table: Array<[string, Parameters<typeof approvalAuditRecord>[1], Record<string, unknown>]> = [
    [
      "a person's, at the page a link opened",
      { decision: 'approve', scope: 'once', by: 'person', decider: 'ui', person: 'link', waited_ms: 5 },
      { by: 'ui', client: 'ui', person: 'link', outcome: 'approve' },
    ],
    [
      "a person's, at a terminal",
      { decision: 'deny', scope: 'once', by: 'person', decider: 'cli', person: 'terminal', waited_ms: 5 },
      { by: 'cli', person: 'terminal', outcome: 'deny' },
    ],
    [
      'the timeout: no person',
      { decision: 'deny', scope: 'once', by: 'timeout', waited_ms: 5 },
      { by: 'timeout', outcome: 'deny', person: undefined },
    ],
  ];
  for (const [what, decided, line] of table)
    it(`says how the person was known: ${what}`, () => {
      const record = approvalAuditRecord(hostKey, decided, new Date(0));
      expect({ ...record, person: record.person }).toMatchObject({
        kind: 'approval',
        approval_kind: 'host_key',
        fingerprint: 'SHA256:abc',
        ...line,
      });
    });
});
