// Text the policy does not read (over MAX_JUDGED_CHARS, or nested deeper than its walk): judged as unread, with that
// reason, never as safe and never let through unasked; text up to the cap is read whole, its hardline caught.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCommandPolicy, MAX_JUDGED_CHARS, type CommandPolicy } from './commandPolicy.js';

let policy: CommandPolicy;
beforeAll(async () => {
  policy = await loadCommandPolicy({ profile: '/home/agent/.switchboard' });
});

const ctx = { home: '/home/agent', cwd: '/home/agent/project' };

/** A heredoc of `chars` in all, ending with `tail` after it: an agent's way to write a file, then one more command. */
function heredoc(chars: number, tail: string): string {
  const head = "cat <<'EOF' > notes.txt\n";
  const end = `\nEOF\n${tail}`;
  const body = 'a line of notes\n'.repeat(chars).slice(0, chars - head.length - end.length);
  return head + body + end;
}

describe('text over the cap is not read', () => {
  const over = heredoc(MAX_JUDGED_CHARS + 1, 'rm -rf /');
  it.each([
    ['ask', false, 'ask'],
    ['ask', true, 'ask'],
    ['deny', false, 'refuse'],
    ['off', false, 'refuse'],
    ['off', true, 'refuse'],
  ] as const)('mode %s (skip_container_guards %s): %s, with the reason', (mode, skip, decision) => {
    const r = policy.classify(
      { kind: 'command', command: over },
      { ...ctx, mode, flags: { skip_container_guards: skip } },
    );
    expect(r).toEqual({
      verdict: 'dangerous',
      decision,
      reasons: [
        {
          severity: 'dangerous',
          rule: 'text.too_long',
          text: 'too long to check: 65 KiB, over the 64 KiB the approval policy reads',
        },
      ],
    });
  });

  it.each([
    ['input', { kind: 'input', data: 'x'.repeat(MAX_JUDGED_CHARS + 1) }],
    ['code', { kind: 'code', code: `# ${'x'.repeat(MAX_JUDGED_CHARS)}\nimport os`, language: 'python' }],
  ] as const)('%s over the cap asks the same way', (_, subject) => {
    const r = policy.classify(subject, { ...ctx, mode: 'ask' });
    expect([r.decision, r.reasons.map((x) => x.rule)]).toEqual(['ask', ['text.too_long']]);
  });

  it('its "always allow" pattern is its digest, which no short command can have', () => {
    const p = policy.commandPattern(over);
    expect(p).toMatch(/^#sha256:[0-9a-f]{64} \(65 KiB, too long to read\)$/);
    expect(policy.commandPattern(over.replace('notes.txt', 'other.txt'))).not.toBe(p);
    expect(policy.commandPattern(`# ${p}`)).toBe('');
    expect(policy.commandPattern(`echo '${p}'`)).not.toBe(p);
  });
});

describe('text up to the cap is read whole', () => {
  it('a heredoc of exactly the cap: the hardline command after it is caught', () => {
    const at = heredoc(MAX_JUDGED_CHARS, 'rm -rf /');
    expect(at.length).toBe(MAX_JUDGED_CHARS);
    const r = policy.classify({ kind: 'command', command: at }, { ...ctx, mode: 'off' });
    expect([r.verdict, r.decision]).toEqual(['hardline', 'refuse']);
  });

  it('a heredoc whose last line is one long line is read (its end found without a regex over the line)', () => {
    const command = `sh <<'EOF'\n${'x'.repeat(60_000)}\nrm -rf ~\nEOF`;
    expect(policy.classify({ kind: 'command', command }, ctx).verdict).toBe('hardline');
    const oneLine = `cat <<'EOF' > f\n${'x'.repeat(60_000)}`;
    expect(policy.classify({ kind: 'command', command: oneLine }, ctx).reasons.map((r) => r.rule)).not.toContain(
      'text.too_long',
    );
  });

  it('nesting deeper than the walk goes is unread, not safe: asked, and refused where nobody is asked', () => {
    for (const command of ['a&&'.repeat(20_000) + 'a', '$('.repeat(5_000) + 'a' + ')'.repeat(5_000)]) {
      expect(command.length).toBeLessThanOrEqual(MAX_JUDGED_CHARS);
      const ask = policy.classify(
        { kind: 'command', command },
        { ...ctx, mode: 'ask', flags: { skip_container_guards: true } },
      );
      expect([ask.decision, ask.reasons.map((r) => r.rule)]).toEqual(['ask', ['parse.too_large']]);
      expect(policy.classify({ kind: 'command', command }, { ...ctx, mode: 'off' }).decision).toBe('refuse');
      expect(policy.commandPattern(command)).toMatch(/^#sha256:/);
    }
    // And the policy still works after it.
    expect(policy.classify({ kind: 'command', command: 'rm -rf /' }, ctx).verdict).toBe('hardline');
  });
});
