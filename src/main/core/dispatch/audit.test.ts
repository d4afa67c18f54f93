import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditLog, summarizeArgs } from './audit.js';
import { writeFileTool } from '../tools/writeFile.js';

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
