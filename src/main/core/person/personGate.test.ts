// Core.invoke lets a person's method through only when the connection shows both that a person is there and how they
// were known; the way reaches the handler from the connection, never from the call's parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asPerson, type CallContext } from '../platform/index.js';
import { makeTestCore, type TestCore } from '../tools/testCore.js';

describe("the person's gate", () => {
  let t: TestCore;
  beforeAll(async () => {
    t = await makeTestCore(['a']);
  });
  afterAll(async () => {
    await t?.close();
  });

  const table: Array<[string, Partial<CallContext>, 'ok' | RegExp]> = [
    ['nothing shown', {}, /only a person may use approvals.revoke: the connection did not show that a person/],
    ['a person, but not how they were known', { personRefusal: () => undefined }, /did not show that a person/],
    ['how, but no check', { person: 'link' }, /did not show that a person/],
    ["the check's refusal", { person: 'terminal', personRefusal: () => 'no terminal' }, /: no terminal$/],
    ['the window (asPerson)', asPerson, 'ok'],
    ['a link', { person: 'link', personRefusal: () => undefined }, 'ok'],
  ];
  for (const [what, ctx, expected] of table)
    it(`${what}: ${expected === 'ok' ? 'let through' : 'refused'}`, async () => {
      const revoke = t.core.invoke('approvals.revoke', { id: 'nope' }, ctx);
      // Past the gate, the rules answer: there is no such rule.
      if (expected === 'ok') await expect(revoke).rejects.toThrow(/no approval rule nope/);
      else
        await expect(revoke).rejects.toMatchObject({ code: 'not_permitted', message: expect.stringMatching(expected) });
    });

  it('the audit line says the way the connection showed, whatever the parameters say', async () => {
    const params = { id: 'nope', person: 'window' } as never;
    await expect(
      t.core.invoke('approvals.revoke', params, { client: 'ui', person: 'link', personRefusal: () => undefined }),
    ).rejects.toThrow(/no approval rule nope/);
    await t.core.audit.flush();
    const last = JSON.parse(readFileSync(join(t.home, 'audit.jsonl'), 'utf8').trim().split('\n').at(-1)!);
    expect(last).toMatchObject({
      kind: 'action',
      tool: 'approvals.revoke',
      client: 'ui',
      person: 'link',
      outcome: 'error',
    });
  });
});
