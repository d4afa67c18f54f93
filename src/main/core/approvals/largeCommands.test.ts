// Large commands through a real Core on a local target: over the command cap, one clear error line and nothing asked
// or run; over what the policy reads, a person is asked with that reason, and the approved command runs whole.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PendingApproval } from '../../../shared/approvals.js';
import type { SwitchboardError } from '../../../shared/errors.js';
import { MAX_COMMAND_CHARS } from '../../../shared/limits.js';
import type { Core } from '../core.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';
import { MAX_JUDGED_CHARS } from './policy/commandPolicy.js';
import { bindingOf } from './commandApprovals.js';

let t: TestCore | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function core(mode: 'ask' | 'off'): Promise<TestCore> {
  t = await makeTestCore(['a'], { extra: `approvals:\n  mode: ${mode}\n  timeout: 600\n` });
  return t;
}

/** The pending approval, once the broker holds one. */
function pending(c: Core): Promise<PendingApproval> {
  return vi.waitFor(() => c.approvals.list()[0] ?? Promise.reject(new Error('nothing pending yet')), {
    timeout: 10_000,
    interval: 10,
  });
}

/** What a call that must fail threw. */
const thrown = (p: Promise<unknown>): Promise<SwitchboardError> =>
  p.then(
    () => Promise.reject(new Error('expected the call to fail')),
    (err: unknown) => err as SwitchboardError,
  );

/** The reason of a command the policy does not read. */
const unread = (command: string): string =>
  `too long to check: ${Math.ceil(command.length / 1024)} KiB, over the 64 KiB the approval policy reads`;

/** A heredoc of about `chars` written to a file, as an agent writes one. */
function heredoc(chars: number, file: string): string {
  return `cat <<'EOF' > ${file}\n${'a line of notes\n'.repeat(Math.ceil(chars / 16))}EOF`;
}

describe('a command over the command cap', () => {
  it('is refused with one clear line, before anything is asked or run', async () => {
    const c = await core('ask');
    const command = heredoc(MAX_COMMAND_CHARS + 16, 'big.txt');
    const err = await thrown(c.core.callTool('terminal', { command }, 'mcp'));
    expect(err.code).toBe('bad_request');
    expect(err.message).toBe(
      'terminal: command: the command is 1.0 MiB, over the 1.0 MiB it may be; ' +
        'write long content to a file with write_file and run a command that reads it',
    );
    expect(c.core.approvals.list()).toEqual([]);
    expect(existsSync(join(c.dirs.a!, 'big.txt'))).toBe(false);
    // The feed and the audit keep a short summary, not the command.
    const entry = c.core.activity.list(1)[0]!;
    expect(entry).toMatchObject({ status: 'error', tool: 'terminal' });
    expect(entry.summary.length).toBeLessThanOrEqual(160);
  });
});

describe('a command over what the policy reads', () => {
  it('asks a person with that reason; approved, it runs whole', async () => {
    const c = await core('ask');
    const command = `${heredoc(MAX_JUDGED_CHARS + 1000, 'notes.txt')}\nwc -c < notes.txt`;
    const call = c.core.callTool('terminal', { command }, 'mcp');
    const p = await pending(c.core);
    expect(p.reasons).toEqual([unread(command)]);
    expect(p.command).toBe(command);
    c.core.approvals.decide({ id: p.id, decision: 'approve', scope: 'once' }, 'ui');
    const lines = Math.ceil((MAX_JUDGED_CHARS + 1000) / 16);
    const result = await call;
    expect(result).toMatchObject({ exit_code: 0, output: `${lines * 16}\n` });
    expect(c.core.activity.list(1)[0]).toMatchObject({ status: 'ok', approval: { decision: 'approve', by: 'ui' } });
  });

  it('with approvals off, nobody is asked, so it is refused on one line that says why', async () => {
    const c = await core('off');
    const command = heredoc(MAX_JUDGED_CHARS + 1000, 'notes.txt');
    const err = await thrown(c.core.callTool('terminal', { command }, 'mcp'));
    expect(err.code).toBe('approval_denied');
    expect(err.message).toBe(`refused: ${unread(command)} (approvals.mode is off)`);
    expect(err.hint).toMatch(/asks nobody/);
    expect(existsSync(join(c.dirs.a!, 'notes.txt'))).toBe(false);
  });
});

describe('the binding of a call with a long argument', () => {
  it('changes with any character of it (the long text stands as its digest)', () => {
    const content = 'a line of notes\n'.repeat(10_000);
    const of = (text: string): string => bindingOf('write_file', { path: 'f', content: text }, 'a#g', 'sha256:x');
    expect(of(content)).toBe(of(`${content}`));
    expect(of(content)).not.toBe(of(`${content.slice(0, -1)}!`));
    expect(of(content)).not.toBe(bindingOf('write_file', { path: 'g', content }, 'a#g', 'sha256:x'));
  });
});
