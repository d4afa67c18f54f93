// The attacks of issue 24 through the real tool path on local targets: sandboxed (the default) and with
// `sandbox: off`, where paths are resolved on this machine without a process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localProvider } from '../backends/providers.js';
import { makeTestCore } from '../tools/testCore.js';
import { ASK_NOBODY, describeRunAttacksOn } from './testRunAttacks.js';

const has = (program: string): boolean => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

describeRunAttacksOn('local (sandboxed)', async () => {
  const t = await makeTestCore(['a'], { extra: ASK_NOBODY, providers: [localProvider] });
  return {
    core: t.core,
    target: 'a',
    has: { git: has('git'), python: has('python3'), make: has('make'), rootLink: true },
    close: () => t.close(),
  };
});

describeRunAttacksOn('local (sandbox: off)', async () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'sb-runs-off-')));
  const t = await makeTestCore(['u'], {
    specs: { u: `{ backend: local, cwd: ${dir}, sandbox: off }` },
    extra: ASK_NOBODY,
    providers: [localProvider],
  });
  // Unsandboxed, a broken judge would really try `rm -rf /usr`: that one is left to the sandboxed target.
  return {
    core: t.core,
    target: 'u',
    has: { git: has('git'), python: has('python3'), make: has('make'), rootLink: false },
    close: async () => {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
