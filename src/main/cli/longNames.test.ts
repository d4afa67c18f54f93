// A name or path of thousands of characters is echoed cut in every error line (src/shared/echoed.ts), through the
// real CLI and a served Core.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, servedProfile } from '../../../scripts/cliHarness.js';

const longName = `t${'x'.repeat(4990)}-tail`;
const longPath = `/tmp/${'p'.repeat(4990)}/file.txt`;

describe('long names in errors', () => {
  const { home } = servedProfile('sb-long-names-', { beforeAll, afterAll });

  it.each([
    [
      'call terminal, a 5,000-char execution_target',
      ['call', 'terminal', JSON.stringify({ command: 'true', execution_target: longName })],
      /unknown target "tx+…x*-tail"/,
    ],
    [
      'call read_file, a 5,000-char path',
      ['call', 'read_file', JSON.stringify({ path: longPath })],
      /no such file: \/tmp\/p+…p*\/file\.txt/,
    ],
    [
      'call terminal, a 5,000-char workdir',
      ['call', 'terminal', JSON.stringify({ command: 'true', workdir: longPath })],
      /workdir \/tmp\/p+…p*\/file\.txt does not exist/,
    ],
    ['targets show, a 5,000-char name', ['targets', 'show', longName], /./],
    ['targets register, a 5,000-char name', ['targets', 'register', longName, '--backend', 'local'], /./],
    ['approvals check, a 5,000-char target', ['approvals', 'check', 'ls', '--execution-target', longName], /./],
  ])('%s: one short line on stderr', async (_what, args, said) => {
    const r = await runCli(home, args);
    expect(r.status).not.toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(400);
    expect(lines[0]).toMatch(said);
  });
});
