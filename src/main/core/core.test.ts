import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Core } from './core.js';
import { SwitchboardError } from '../../shared/errors.js';
import { MAX_OUTPUT_CHARS } from './tools/index.js';

const root = mkdtempSync(join(tmpdir(), 'sb-core-'));
const home = join(root, 'home');
const dirA = join(root, 'a');
const dirB = join(root, 'b');
let core: Core;

function writeConfig(extra = ''): void {
  writeFileSync(
    join(home, 'config.yaml'),
    `terminal:\n  default_target: a\n  targets:\n    a: { backend: local, cwd: ${dirA} }\n    b: { backend: ` +
      `local, cwd: ${dirB} }\n${extra}`,
  );
}

const term = (args: Record<string, unknown>) => core.callTool('terminal', args, 'test');

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  mkdirSync(join(dirA, 'sub'), { recursive: true });
  mkdirSync(dirB, { recursive: true });
  writeConfig();
  core = await new Core({ home }).start();
});
afterAll(async () => {
  await core.close();
  rmSync(root, { recursive: true, force: true });
});

describe('terminal on local targets', () => {
  it('tracks cwd per target: a cd on one is seen by the next call there and nowhere else', async () => {
    const r1 = await term({ command: 'cd sub', execution_target: 'a' });
    expect(r1).toMatchObject({ execution_target: 'a', exit_code: 0, cwd: join(dirA, 'sub') });
    expect(r1.generation).toMatch(/^c[0-9a-f]{11}$/);
    expect((await term({ command: 'pwd', execution_target: 'a' })).output).toBe(join(dirA, 'sub') + '\n');
    expect((await term({ command: 'pwd', execution_target: 'b' })).output).toBe(dirB + '\n');
  });

  it("a concurrent call that stays put does not undo another call's cd", async () => {
    await term({ command: `cd ${dirA}`, execution_target: 'a' });
    const slow = term({ command: 'sleep 1', execution_target: 'a' });
    await term({ command: 'cd sub', execution_target: 'a' });
    await slow;
    expect((await term({ command: 'pwd', execution_target: 'a' })).output).toBe(join(dirA, 'sub') + '\n');
  });

  it('uses the default target when none is named', async () => {
    expect((await term({ command: 'pwd' })).execution_target).toBe('a');
  });

  it('keeps exported variables between calls on the same target only', async () => {
    await term({ command: 'export SB_MARK=on-a', execution_target: 'a' });
    expect((await term({ command: 'echo "[$SB_MARK]"', execution_target: 'a' })).output).toBe('[on-a]\n');
    expect((await term({ command: 'echo "[$SB_MARK]"', execution_target: 'b' })).output).toBe('[]\n');
  });

  it('returns the exit code and merges stderr', async () => {
    const r = await term({ command: 'echo out; echo err >&2; exit 7', execution_target: 'b' });
    expect(r.exit_code).toBe(7);
    expect(r.output).toBe('out\nerr\n');
  });

  it('times out with exit 124, says so, and kills the whole process group', async () => {
    const marker = `sb-timeout-${Date.now()}`;
    // The sleeps would outlast the test's timeout: returning at all is the hang guard.
    const r = await term({ command: `(sleep 2931; echo ${marker}) & sleep 2931`, timeout: 1, execution_target: 'b' });
    expect(r.exit_code).toBe(124);
    expect(r.timed_out).toBe(true);
    expect(r.output).toMatch(/\[timed out after 1s\]$/);
    await new Promise((res) => setTimeout(res, 300));
    const ps = spawnSync('pgrep', ['-f', `sleep 2931`], { encoding: 'utf8' });
    expect(ps.stdout.trim()).toBe('');
  });

  it('times out and kills the whole group, children started with & included', async () => {
    // The child would hold the pipe for 49 minutes, far past the test's timeout: returning at all is the hang guard.
    const r = await term({ command: 'sleep 2932 & echo hi; sleep 2933', timeout: 2, execution_target: 'b' });
    expect(r.exit_code).toBe(124);
    expect(r.output).toMatch(/^hi\n[\s\S]*\[timed out after 2s\]$/);
    await new Promise((res) => setTimeout(res, 300));
    expect(spawnSync('pgrep', ['-f', 'sleep 293[23]'], { encoding: 'utf8' }).stdout.trim()).toBe('');
  });

  it('returns when the shell finishes, leaving a `cmd &` child running (issue 9 item 8)', async () => {
    const r = await term({ command: 'sleep 2934 & echo hi', timeout: 20, execution_target: 'b' });
    expect(r).toMatchObject({ output: 'hi\n', exit_code: 0 });
    expect(r.timed_out).toBeUndefined();
    expect(spawnSync('pgrep', ['-f', 'sleep 2934'], { encoding: 'utf8' }).stdout.trim()).not.toBe('');
    spawnSync('pkill', ['-f', 'sleep 2934']);
  });

  it('caps output, keeping head and tail and saying what was cut', async () => {
    const r = await term({ command: 'echo FIRST; seq 1 200000; echo LAST', execution_target: 'b' });
    const out = r.output as string;
    expect(r.truncated).toBe(true);
    expect(out.length).toBeLessThan(MAX_OUTPUT_CHARS + 200);
    expect(out.startsWith('FIRST\n1\n')).toBe(true);
    expect(out.trimEnd().endsWith('200000\nLAST')).toBe(true);
    expect(out).toMatch(/\[… \d+ chars of output cut …\]/);
  });

  it('falls back to the nearest existing parent when the cwd is deleted', async () => {
    const gone = join(dirB, 'gone', 'deeper');
    mkdirSync(gone, { recursive: true });
    await term({ command: `cd ${gone}`, execution_target: 'b' });
    rmSync(join(dirB, 'gone'), { recursive: true });
    const r = await term({ command: 'pwd', execution_target: 'b' });
    expect(r.output).toBe(`[the cwd ${gone} no longer exists; running in ${dirB}]\n${dirB}\n`);
    expect(r.cwd).toBe(dirB);
  });

  it('refuses a workdir that does not exist, running nothing and leaving the cwd alone', async () => {
    await term({ command: `cd ${dirB}`, execution_target: 'b' });
    await expect(
      term({ command: 'touch typo-ran', workdir: join(dirB, 'typo'), execution_target: 'b' }),
    ).rejects.toMatchObject({ code: 'bad_request', message: `workdir ${join(dirB, 'typo')} does not exist` });
    expect(existsSync(join(dirB, 'typo-ran'))).toBe(false);
    expect((await term({ command: 'pwd', execution_target: 'b' })).cwd).toBe(dirB);
  });

  it('runs a workdir for one call without moving the tracked cwd', async () => {
    await term({ command: `cd ${dirB}`, execution_target: 'b' });
    expect((await term({ command: 'pwd', workdir: root, execution_target: 'b' })).output).toBe(root + '\n');
    expect((await term({ command: 'pwd', execution_target: 'b' })).output).toBe(dirB + '\n');
  });
});

describe('errors', () => {
  const cases: Array<[string, string, Record<string, unknown>, string, RegExp]> = [
    [
      'unknown target',
      'terminal',
      { command: 'true', execution_target: 'nope' },
      'unknown_target',
      /unknown target "nope"/,
    ],
    ['old routing name', 'terminal', { command: 'true', target: 'a' }, 'bad_request', /"target" is not an argument/],
    ['unknown tool', 'termnal', { command: 'true' }, 'unknown_tool', /did you mean "terminal"/],
    ['bad arguments', 'terminal', { command: 3 }, 'bad_request', /terminal: command/],
    ['unknown argument', 'terminal', { command: 'true', colour: 1 }, 'bad_request', /colour/],
  ];
  for (const [name, tool, args, code, pattern] of cases) {
    it(name, async () => {
      const err = await core.callTool(tool, args, 'test').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SwitchboardError);
      expect((err as SwitchboardError).code).toBe(code);
      expect((err as SwitchboardError).message).toMatch(pattern);
    });
  }
});

describe('config edits', () => {
  it('are picked up without a restart, and a broken edit keeps the last good config', async () => {
    const dirC = join(root, 'c');
    mkdirSync(dirC);
    writeConfig(`    c: { backend: local, cwd: ${dirC} }\n`);
    expect((await term({ command: 'pwd', execution_target: 'c' })).output).toBe(dirC + '\n');
    writeFileSync(join(home, 'config.yaml'), 'terminal:\n  targets:\n    a: { backend: local, cwdd: /x }\n');
    expect((await term({ command: 'pwd', execution_target: 'c' })).output).toBe(dirC + '\n');
    expect(core.targets.problems().join('\n')).toMatch(/unknown key "cwdd".*previous config stays in force/);
    writeConfig();
  });

  it('writes an audit line per call without the secret', async () => {
    await term({ command: 'echo TOKEN=supersecret123', execution_target: 'a' });
    await core.audit.flush();
    const text = readFileSync(join(home, 'audit.jsonl'), 'utf8');
    expect(text).toContain('"tool":"terminal"');
    expect(text).not.toContain('supersecret123');
    expect(existsSync(join(home, 'audit.jsonl'))).toBe(true);
  });
});
