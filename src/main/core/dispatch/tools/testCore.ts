// Test helper: a Core on a temporary SWITCHBOARD_HOME with local targets in their own temp directories.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core, type CoreOptions } from '../../core.js';
import type { RuntimeSource } from '../../registry/runtimeSource.js';
import { localProvider } from '../../backends/local/localProvider.js';
import { agentToolsExtension } from './agentToolsExtension.js';

export interface TestCore {
  core: Core;
  home: string;
  /** The cwd of each local target (a fresh directory). */
  dirs: Record<string, string>;
  close(): Promise<void>;
}

/** `names` become local targets (the first is the default), each in its own directory. */
export async function makeTestCore(names: string[], opts: { runtime?: (home: string) => RuntimeSource; extra?: string } = {}): Promise<TestCore> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-tools-')));
  const home = join(root, 'home');
  mkdirSync(home);
  const dirs: Record<string, string> = {};
  const lines = ['terminal:', `  default_target: ${names[0]}`, '  targets:'];
  for (const n of names) {
    dirs[n] = join(root, n);
    mkdirSync(dirs[n]!);
    lines.push(`    ${n}: { backend: local, cwd: ${dirs[n]} }`);
  }
  writeFileSync(join(home, 'config.yaml'), lines.join('\n') + '\n' + (opts.extra ?? ''));
  const options: CoreOptions = { home, providers: [localProvider], extensions: [agentToolsExtension] };
  if (opts.runtime) options.runtime = opts.runtime;
  const core = await new Core(options).start();
  return {
    core,
    home,
    dirs,
    close: async () => {
      await core.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
