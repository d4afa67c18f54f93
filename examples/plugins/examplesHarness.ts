// A Core on a fresh profile with example plugins installed and enabled, as a person would set one up: for the
// contract suite and the policy tests of examples/plugins.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Core } from '../../src/main/core/core.js';
import { asPerson } from '../../src/main/core/platform/handlers.js';

export const examplesDir = dirname(fileURLToPath(import.meta.url));

export interface ExampleCore {
  core: Core;
  home: string;
  close(): Promise<void>;
}

/**
 * `plugins`: example folder names copied into the profile's plugins/ and enabled. The profile is made under the
 * worktree's .test-env (not /tmp): the bwrap sandbox has a /tmp of its own, and must hide the profile by itself.
 */
export async function exampleCore(plugins: string[], config = 'terminal:\n  targets: {}\n'): Promise<ExampleCore> {
  const parent = join(examplesDir, '../../.test-env');
  mkdirSync(parent, { recursive: true });
  const home = mkdtempSync(join(parent, 'sb-examples-'));
  mkdirSync(join(home, 'plugins'), { recursive: true });
  for (const name of plugins)
    cpSync(join(examplesDir, name), join(home, 'plugins', name), {
      recursive: true,
      filter: (src) => !src.endsWith('.test.ts'),
    });
  writeFileSync(join(home, 'config.yaml'), config);
  const core = await new Core({ home }).start();
  for (const name of plugins) await core.invoke('plugins.enable', { name }, asPerson);
  return {
    core,
    home,
    close: async () => {
      await core.close();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
