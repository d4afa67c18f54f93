// A target's cwd survives a restart of the Core, through two real Cores on one profile; where it cannot be restored
// the next command's result says so and why.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core } from '../core.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/**
 * A profile with one local target `box` starting in `work`; `extra` goes into its spec (a change makes a new identity).
 */
function profile(extra = ''): { home: string; work: string; writeConfig: (extra: string) => void } {
  const root = mkdtempSync(join(tmpdir(), 'sb-cwd-kept-'));
  roots.push(root);
  const home = join(root, 'home');
  const work = join(root, 'work');
  mkdirSync(join(work, 'deeper', 'still'), { recursive: true });
  mkdirSync(home, { recursive: true });
  const writeConfig = (more: string): void =>
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  default_target: box',
        '  targets:',
        `    box: { backend: local, sandbox: off, cwd: ${work}${more} }`,
        '',
      ].join('\n'),
    );
  writeConfig(extra);
  return { home, work, writeConfig };
}

async function withCore<T>(home: string, run: (core: Core) => Promise<T>): Promise<T> {
  const core = await new Core({ home }).start();
  try {
    return await run(core);
  } finally {
    await core.close();
  }
}

const terminal = (core: Core, command: string): Promise<Record<string, unknown>> =>
  core.callTool('terminal', { command }, 'test') as Promise<Record<string, unknown>>;

describe('the cwd across a Core restart', () => {
  it('is where the last cd left it, for commands and the sidebar', async () => {
    const { home, work } = profile();
    await withCore(home, async (core) => {
      expect(await terminal(core, 'cd deeper/still')).toMatchObject({ cwd: join(work, 'deeper', 'still') });
    });
    await withCore(home, async (core) => {
      expect(await terminal(core, 'pwd')).toMatchObject({ output: `${join(work, 'deeper', 'still')}\n`, exit_code: 0 });
      expect(core.listTargets().find((t) => t.name === 'box')?.cwd).toBe(join(work, 'deeper', 'still'));
    });
  });

  it('a kept cwd removed meanwhile: the command says it no longer exists and where it runs', async () => {
    const { home, work } = profile();
    await withCore(home, async (core) => void (await terminal(core, 'cd deeper/still')));
    rmSync(join(work, 'deeper', 'still'), { recursive: true });
    await withCore(home, async (core) => {
      const r = await terminal(core, 'pwd');
      expect(r.output).toBe(
        `[the cwd ${join(work, 'deeper', 'still')} no longer exists; ` +
          `running in ${join(work, 'deeper')}]\n${join(work, 'deeper')}\n`,
      );
      expect(r.cwd).toBe(join(work, 'deeper'));
    });
  });

  it('a target replaced while the Core was down starts afresh, and its first result says why', async () => {
    const { home, work, writeConfig } = profile();
    await withCore(home, async (core) => void (await terminal(core, 'cd deeper')));
    writeConfig(', timeout: 77');
    await withCore(home, async (core) => {
      const r = await terminal(core, 'pwd');
      expect(r.output).toMatch(
        new RegExp(
          `^\\[the cwd was reset to ${work}: target "box" was replaced \\(it was box#\\S+\\), ` +
            `and a cwd belongs to one generation\\]\\n${work}\\n$`,
        ),
      );
      // Said once.
      expect((await terminal(core, 'pwd')).output).toBe(`${work}\n`);
    });
  });

  it('a kept file that is not one: reset to the start, said plainly', async () => {
    const { home, work } = profile();
    await withCore(home, async (core) => void (await terminal(core, 'cd deeper')));
    const dir = join(home, 'state', 'cwd');
    for (const f of readdirSync(dir)) writeFileSync(join(dir, f), '{"cwd": 42');
    await withCore(home, async (core) => {
      const r = await terminal(core, 'pwd');
      expect(r.output).toMatch(
        new RegExp(
          `^\\[the cwd was reset to ${work}: its saved cwd \\(\\S+\\.json\\) was not readable as one\\]\\n${work}\\n$`,
        ),
      );
    });
  });
});
