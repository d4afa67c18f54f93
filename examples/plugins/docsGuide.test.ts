// docs/plugins.md is enough on its own: its "smallest working plugin" is taken from the page as written, installed
// and enabled with the CLI into a fresh profile, and used as a config target and a runtime target by tool calls.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  ensureBuilt,
  runCli,
  runCliAtTerminal,
  startServe,
  tempHome,
  type Served,
} from '../../scripts/cliHarness.js';
import { repoRoot } from '../../scripts/testEnv.js';

/** The fenced block right after the line that names `file` (as the guide introduces each file). */
function blockAfter(doc: string, file: string): string {
  const at = doc.indexOf(`\`${file}\`:`);
  if (at < 0) throw new Error(`docs/plugins.md no longer introduces ${file}`);
  const m = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(at));
  if (!m?.[1]) throw new Error(`no code block after ${file}`);
  return m[1];
}

let root: string;
let home: string;
let served: Served | undefined;

beforeAll(() => {
  ensureBuilt();
  root = tempHome('sb-docs-guide-');
  home = join(root, 'home');
  const doc = readFileSync(join(repoRoot, 'docs/plugins.md'), 'utf8');
  mkdirSync(join(root, 'mybox'), { recursive: true });
  mkdirSync(home);
  writeFileSync(join(root, 'mybox/plugin.yaml'), blockAfter(doc, 'mybox/plugin.yaml'));
  writeFileSync(join(root, 'mybox/index.mjs'), blockAfter(doc, 'mybox/index.mjs'));
  writeFileSync(
    join(home, 'config.yaml'),
    'terminal:\n  default_target: cfgbox\n  targets:\n    cfgbox: { backend: mybox, label: dev }\n',
  );
});

afterAll(async () => {
  await served?.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('the plugin of docs/plugins.md', () => {
  it('installs and enables with the CLI, then serves a config target and a runtime target', async () => {
    // As a person at a terminal: each says what the plugin allows and asks.
    const install = await runCliAtTerminal(home, ['plugins', 'install', join(root, 'mybox')], {}, 'y');
    expect(install.stdout).toContain('Install mybox? [y/N] ');
    expect(install.status).toBe(0);
    expect((await runCliAtTerminal(home, ['plugins', 'enable', 'mybox'], {}, 'y')).status).toBe(0);

    served = await startServe(home);
    const list = JSON.parse((await runCliAtTerminal(home, ['plugins', 'list', '--json'])).stdout) as {
      plugins: Array<{ name: string; state: string; backends: string[] }>;
    };
    expect(list.plugins.find((p) => p.name === 'mybox')).toMatchObject({ state: 'active', backends: ['mybox'] });

    const fromConfig = await callTool(home, 'terminal', {
      command: 'echo hello from config',
      execution_target: 'cfgbox',
    });
    expect(fromConfig).toMatchObject({ exit_code: 0, output: 'hello from config\n', execution_target: 'cfgbox' });

    const work = join(root, 'work');
    mkdirSync(work);
    const reg = await runCli(home, [
      'targets',
      'register',
      'box1',
      '--backend',
      'mybox',
      '--set',
      'label=dev',
      '--cwd',
      work,
    ]);
    expect(reg.stderr).toBe('');
    expect(reg.status).toBe(0);
    const r = await callTool(home, 'terminal', {
      command: 'mkdir -p sub && cd sub && echo "hello $HOME"; exit 3',
      execution_target: 'box1',
    });
    expect(r).toMatchObject({ exit_code: 3, cwd: join(work, 'sub'), execution_target: 'box1' });
    expect(String(r.output)).toMatch(/^hello \/.*\/plugins\/\.data\/mybox\/box1_[^/]+\n$/);
    // Files go through the Core's exec-based fallback: the guide's plugin has only exec and home.
    await callTool(home, 'write_file', {
      path: `${String(r.cwd)}/a.txt`,
      content: 'written\n',
      execution_target: 'box1',
    });
    expect(
      await callTool(home, 'read_file', { path: `${String(r.cwd)}/a.txt`, execution_target: 'box1' }),
    ).toMatchObject({ content: expect.stringContaining('written') });

    const doctor = await runCli(home, ['doctor', '--json']);
    expect(doctor.stdout).toContain('"mybox"');
    // A typo in a field is named, as the guide promises.
    const typo = await runCli(home, ['targets', 'register', 'box2', '--backend', 'mybox', '--set', 'lable=dev']);
    expect(typo.status).not.toBe(0);
    expect(typo.stderr).toContain('lable');
  });
});
