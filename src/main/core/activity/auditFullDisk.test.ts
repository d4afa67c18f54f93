// The audit log on a full disk (a real 2 MB tmpfs): lines are lost whole, never cut; the loss goes to stderr and
// doctor, the next line written says how many (audit_lost), and `switchboard audit verify` reads the log as whole.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { canMountTmpfs, fullDisk, type FullDisk } from '../tools/index.js';
import { Core } from '../core.js';
import { localProvider } from '../backends/providers.js';
import { AuditLog, type AuditRecord } from './audit.js';
import { parseHead, verifyChain } from './auditChain.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../../..');

(canMountTmpfs() ? describe : describe.skip)('the audit log on a full disk', () => {
  let disk: FullDisk;
  beforeAll(() => {
    execFileSync(process.execPath, [join(repo, 'scripts/build.mjs'), 'node'], { cwd: repo, stdio: 'pipe' });
    disk = fullDisk();
  }, 400_000);
  afterAll(() => disk?.unmount());

  it('loses lines whole, says so on stderr and in doctor, counts them in the next line, and verifies', async () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const log = new AuditLog(disk.dir);
      // Long lines, so the ones that meet the full disk cross a page's end: the disk takes part of them.
      const record = (i: number): AuditRecord => ({
        time: new Date().toISOString(),
        kind: 'dispatch',
        client: 'test',
        tool: 'terminal',
        args: `step ${i} ${'x'.repeat(700)}`,
        outcome: 'ok',
      });
      for (let i = 1; i <= 3; i++) {
        log.write(record(i));
        await log.flush();
      }
      disk.fill();
      for (let i = 4; i <= 12; i++) {
        log.write(record(i));
        await log.flush();
      }
      const full = readFileSync(log.path, 'utf8');
      // Never a cut line: the file ends a line, and each line is a whole record.
      expect(full.endsWith('\n')).toBe(true);
      const written = full
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as { seq: number; args: string; audit_lost?: number });
      const lost = 12 - written.length;
      expect(lost).toBeGreaterThan(0);
      const said = stderr.mock.calls.map((c) => String(c[0])).filter((t) => t.includes('audit line lost'));
      expect(said).toHaveLength(1);
      expect(said[0]).toMatch(
        /^switchboard: audit line lost: cannot write \S*audit\.jsonl: no space left on the device \(ENOSPC\);/,
      );
      expect(log.problem()).toMatch(
        new RegExp(
          `^audit log: ${lost} lines? lost since the Core started, ${lost} not yet said in the log \\(cannot write`,
        ),
      );

      disk.free();
      log.write(record(13));
      await log.flush();
      await log.close();
      const lines = readFileSync(log.path, 'utf8')
        .split('\n')
        .slice(0, -1)
        .map((l) => JSON.parse(l) as { seq: number; args: string; audit_lost?: number });
      const last = lines[lines.length - 1]!;
      expect(last).toMatchObject({ seq: written.length + 1, audit_lost: lost });
      expect(last.args).toMatch(/^step 13 /);
      expect(
        stderr.mock.calls
          .map((c) => String(c[0]))
          .some((t) => t.includes(`${lost} line${lost === 1 ? ' was' : 's were'} lost`)),
      ).toBe(true);
      expect(log.problem()).toMatch(new RegExp(`^audit log: ${lost} lines? lost since the Core started \\(`));

      const head = parseHead(readFileSync(`${log.path}.head`, 'utf8'));
      expect(verifyChain(readFileSync(log.path), head)).toMatchObject({ whole: true, lost });
    } finally {
      stderr.mockRestore();
    }
    const r = spawnSync(process.execPath, [join(repo, 'bin/switchboard.js'), 'audit', 'verify'], {
      env: { ...process.env, SWITCHBOARD_HOME: disk.dir },
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        String.raw`the chain is whole, \d+ lines; \d+ lines? (was|` +
          String.raw`were) lost when they could not be written \(a full disk\), ` +
          String.raw`as the lines after them say \(audit_lost\)`,
      ),
    );
  }, 200_000);

  it("a Core's tool calls on a full profile disk: doctor names the loss, the next call's line counts it", async () => {
    const home = join(disk.dir, 'profile');
    mkdirSync(home);
    writeFileSync(
      join(home, 'config.yaml'),
      `terminal:\n  default_target: here\n  targets:\n    here: { backend: local, cwd: /, sandbox: ` +
        `off }\napprovals:\n  mode: off\n`,
    );
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const core = await new Core({ home, providers: [localProvider] }).start();
    try {
      await core.callTool('terminal', { command: 'true' }, 'test');
      await core.audit.flush();
      disk.fill();
      // The log's last page has room for a few lines still; calls go on until one does not fit.
      for (let i = 0; i < 64 && !core.audit.problem(); i++) {
        await core.callTool('terminal', { command: 'true' }, 'test');
        await core.audit.flush();
      }
      const report = (await core.invoke('doctor.run', { timeout_ms: 10_000 })) as { problems: string[] };
      expect(report.problems).toContainEqual(
        expect.stringMatching(
          new RegExp(
            String.raw`^audit log: 1 line lost since the Core started, 1 not yet said in the log \(cannot write ` +
              String.raw`\S*audit\.jsonl: no space left on the device \(ENOSPC\)\)$`,
          ),
        ),
      );
      disk.free();
      await core.callTool('terminal', { command: 'true' }, 'test');
      await core.audit.flush();
    } finally {
      disk.free();
      await core.close();
      stderr.mockRestore();
    }
    const lines = readFileSync(join(home, 'audit.jsonl'), 'utf8')
      .split('\n')
      .slice(0, -1)
      .map((l) => JSON.parse(l) as { seq: number; audit_lost?: number; tool?: string });
    expect(lines.filter((l) => l.audit_lost)).toEqual([expect.objectContaining({ audit_lost: 1, tool: 'terminal' })]);
    expect(
      verifyChain(
        readFileSync(join(home, 'audit.jsonl')),
        parseHead(readFileSync(join(home, 'audit.jsonl.head'), 'utf8')),
      ),
    ).toMatchObject({ whole: true, lost: 1 });
  }, 60_000);
});
