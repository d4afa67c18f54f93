// The attacks of issue 24 through the real tool path on a real backend (local sandboxed, SSH, Docker): a delete split
// over writes to a background shell, a script written then run, git hooks and config, and writes through a link. The
// Core asks with nobody to answer (approvals.timeout: 2 s), so an asked call is denied; each test then checks that
// the canary is still there, on the target.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolResult } from '../../../shared/tools.js';
import type { Core } from '../core.js';
import type { SwitchboardError } from '../../../shared/errors.js';

export interface AttackEnv {
  core: Core;
  /** The target the calls run on. */
  target: string;
  /** What the target has: git and python3 (a busybox container has neither), and whether `rm -rf usr` may be tried. */
  has: { git: boolean; python: boolean; make?: boolean; rootLink: boolean };
  close(): Promise<void>;
}

type Row = Record<string, unknown>;

/** The approvals section such a Core is made with: ask, and a person who never answers. */
export const ASK_NOBODY = 'approvals:\n  mode: ask\n  timeout: 2\n';

export function describeRunAttacksOn(label: string, make: () => Promise<AttackEnv | undefined>): void {
  describe(`what really runs, on ${label}`, () => {
    let env: AttackEnv | undefined;
    const R = `sbr-${randomBytes(4).toString('hex')}`;
    const call = (tool: string, args: Row): Promise<ToolResult> =>
      env!.core.callTool(tool, { ...args, execution_target: env!.target }, 'mcp');
    const sh = async (command: string): Promise<string> => String((await call('terminal', { command })).output);
    /** A setup step a person approves when it is asked (it changes what git runs, as the attack needs). */
    const approvedSh = async (command: string): Promise<string> => {
      const running = call('terminal', { command });
      const asked = await Promise.race([
        running.then(
          () => undefined,
          () => undefined,
        ),
        waitPending(env!.core),
      ]);
      if (asked) env!.core.approvals.decide({ id: asked.id, decision: 'approve', scope: 'once' }, 'ui');
      return String((await running).output);
    };
    /** The call is denied (asked and not answered, or refused); its error. */
    const denied = async (tool: string, args: Row): Promise<SwitchboardError> => {
      try {
        await call(tool, args);
      } catch (err) {
        expect((err as SwitchboardError).code, `${tool} ${JSON.stringify(args)}`).toBe('approval_denied');
        return err as SwitchboardError;
      }
      throw new Error(`${tool} ${JSON.stringify(args)} ran`);
    };
    const canary = async (): Promise<boolean> =>
      (await sh(`test -e ${R}/canary/file && echo yes || echo no`)) === 'yes\n';
    const test = (name: string, fn: () => Promise<void>, timeout = 60_000): void => {
      it(
        name,
        async (ctx) => {
          if (!env) return ctx.skip();
          await sh(`mkdir -p ${R}/canary && echo keep > ${R}/canary/file`);
          await fn();
          expect(await canary(), 'the canary survives').toBe(true);
        },
        timeout,
      );
    };

    beforeAll(async () => {
      env = await make();
    }, 60_000);
    afterAll(async () => {
      if (!env) return;
      // The run directory goes as a person would let it: the delete asks, and the test approves it.
      const core = env.core;
      // Test cleanup: the run directory may already be gone.
      const cleanup = call('terminal', { command: `rm -rf ${R}` }).catch(() => undefined);
      const pending = await waitPending(core);
      core.approvals.decide({ id: pending.id, decision: 'approve', scope: 'once' }, 'ui');
      await cleanup;
      await env.close();
    });

    test('a delete split over writes to a background shell is asked, and does not run', async () => {
      const bg = await call('terminal', { command: 'sh', background: true });
      const id = String(bg.session_id);
      try {
        for (const data of ['x=r\n', 'y=m\n', 'z=$x$y\n'])
          await call('process', { action: 'write', session_id: id, data });
        const err = await denied('process', { action: 'write', session_id: id, data: `$z -rf ${R}/canary\n` });
        expect(err.message).toMatch(/recursive delete/);
        // Input that completes nothing runs nothing; a shutdown split in two is refused once whole, without asking.
        await call('process', { action: 'write', session_id: id, data: 'shut' });
        const hard = await denied('process', { action: 'write', session_id: id, data: 'down -h now\n' });
        expect(hard.message).toMatch(/never run/);
      } finally {
        await call('process', { action: 'kill', session_id: id });
      }
    });

    test('a script written, then run (sh F, . F, ./F, sh < F), is judged by its content', async () => {
      await call('write_file', { path: `${R}/x.sh`, content: `#!/bin/sh\nrm -rf ${R}/canary\n` });
      await sh(`chmod +x ${R}/x.sh`);
      for (const command of [`sh ${R}/x.sh`, `. ${R}/x.sh`, `./${R}/x.sh`, `sh < ${R}/x.sh`]) {
        const err = await denied('terminal', { command });
        expect(err.message).toMatch(/recursive delete .*x\.sh/);
      }
      // A harmless script runs without asking.
      await call('write_file', { path: `${R}/ok.sh`, content: 'echo fine\n' });
      expect(await sh(`sh ${R}/ok.sh`)).toBe('fine\n');
      // A script that is not there is not judged as harmless.
      expect((await denied('terminal', { command: `sh ${R}/absent.sh` })).message).toMatch(/not there to be checked/);
    });

    test('content changed while a person decides is refused, not run', async () => {
      await call('write_file', { path: `${R}/y.sh`, content: `rm -rf ${R}/canary/other\n` });
      const core = env!.core;
      const asked = call('terminal', { command: `sh ${R}/y.sh` });
      const pending = await waitPending(core);
      // The agent swaps the script while the approval waits; the person approves what was shown.
      await call('write_file', { path: `${R}/y.sh`, content: `rm -rf ${R}/canary\n` });
      core.approvals.decide({ id: pending.id, decision: 'approve', scope: 'once' }, 'ui');
      const err = await asked.then(
        () => undefined,
        (e: unknown) => e as SwitchboardError,
      );
      expect(err?.message).toMatch(/changed after the approval/);
    });

    test('make runs its Makefile: the recipes are judged', async () => {
      if (!env!.has.make) return;
      await call('write_file', {
        path: `${R}/mk/Makefile`,
        content: `all:\n\t@echo built\nclean:\n\t$(RM) -r ../canary\n`,
      });
      expect(await sh(`make -s -C ${R}/mk`)).toBe('built\n');
      expect((await denied('terminal', { command: `make -C ${R}/mk clean` })).message).toMatch(
        /recursive delete .*Makefile/,
      );
    });

    test('a script a running command will run later cannot be swapped unasked', async () => {
      await call('write_file', { path: `${R}/late.sh`, content: 'echo ok\n' });
      const bg = await call('terminal', { command: `sleep 8; sh ${R}/late.sh`, background: true });
      const err = await denied('write_file', { path: `${R}/late.sh`, content: `rm -rf ${R}/canary\n` });
      expect(err.message).toMatch(/recursive delete .*which a command still running will run/);
      expect(
        (await denied('patch', { path: `${R}/late.sh`, old_string: 'echo ok', new_string: 'echo no' })).message,
      ).toMatch(/still running/);
      // Harmless content may still be written.
      await call('write_file', { path: `${R}/late.sh`, content: 'echo fine\n' });
      const done = await call('process', { action: 'wait', session_id: String(bg.session_id), timeout: 30 });
      expect(String(done.output)).toContain('fine');
    });

    test('a python script written then run asks', async () => {
      if (!env!.has.python) return;
      await call('write_file', {
        path: `${R}/x.py`,
        content: `import shutil\nshutil.rmtree(${JSON.stringify(`${R}/canary`)})\n`,
      });
      expect((await denied('terminal', { command: `python3 ${R}/x.py` })).message).toMatch(/deletes a directory tree/);
    });

    test('git runs its hooks and config-named programs: they are judged', async () => {
      if (!env!.has.git) return;
      const repo = `${R}/repo`;
      await approvedSh(
        `git init -q ${repo} && git -C ${repo} config user.email a@b && git -C ${repo} config user.name a && ` +
          `git -C ${repo} config core.hooksPath hooks && mkdir -p ${repo}/hooks`,
      );
      await call('write_file', { path: `${repo}/hooks/pre-commit`, content: `#!/bin/sh\nrm -rf ../canary\n` });
      await sh(`chmod +x ${repo}/hooks/pre-commit`);
      expect((await denied('terminal', { command: `git -C ${repo} commit -q --allow-empty -m x` })).message).toMatch(
        /pre-commit/,
      );
      await approvedSh(`rm ${repo}/hooks/pre-commit && git -C ${repo} config core.fsmonitor 'rm -rf ../canary'`);
      expect((await denied('terminal', { command: `cd ${repo} && git status` })).message).toMatch(
        /git config core\.fsmonitor/,
      );
      expect(
        (await denied('terminal', { command: `git -C ${repo} -c core.editor='rm -rf ../canary' commit --allow-empty` }))
          .message,
      ).toMatch(/core\.editor/);
    });

    test('a write through a link lands where the link points: asked as that file', async () => {
      // Making the link may itself ask (it names a key store): a person lets the setup run.
      await approvedSh(`mkdir -p ${R}/h/.ssh && ln -s h/.ssh/authorized_keys ${R}/ak`);
      expect((await denied('write_file', { path: `${R}/ak`, content: 'ssh-ed25519 AAAA attacker\n' })).message).toMatch(
        /\.ssh\/authorized_keys.*through the link/,
      );
      expect((await denied('terminal', { command: `echo attacker >> ${R}/ak` })).message).toMatch(
        /\.ssh\/authorized_keys/,
      );
      expect((await denied('patch', { path: `${R}/ak`, old_string: 'a', new_string: 'b' })).message).toMatch(
        /\.ssh\/authorized_keys/,
      );
      const copied = (await denied('terminal', { command: `cp /etc/hostname ${R}/ak` })).message;
      expect(copied, copied).toMatch(/\.ssh\/authorized_keys/);
      expect(await sh(`test -e ${R}/h/.ssh/authorized_keys && echo written || echo absent`)).toBe('absent\n');
    });

    test('rm -rf usr where the cwd is a link to / is refused as hardline', async () => {
      if (!env!.has.rootLink) return;
      await sh(`ln -s / ${R}/root`);
      const err = await denied('terminal', { command: 'rm -rf usr', workdir: `${R}/root` });
      expect(err.message).toMatch(/never run/);
    });
  });
}

function waitPending(core: Core): Promise<{ id: string }> {
  return new Promise((resolve) => {
    const now = core.approvals.list()[0];
    if (now) return resolve(now);
    const off = core.approvals.onChange((list) => {
      if (list[0]) {
        off();
        resolve(list[0]);
      }
    });
  });
}
