// Test helper: a Core on a temporary SWITCHBOARD_HOME with local targets in their own temp directories.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Core, type CoreOptions } from '../core.js';
import type { RuntimeSource } from '../registry/index.js';
import type { BackendProvider } from '../backends/index.js';
import { localProvider } from '../backends/providers.js';

export interface TestCore {
  core: Core;
  home: string;
  /** The cwd of each local target (a fresh directory). */
  dirs: Record<string, string>;
  close(): Promise<void>;
}

export interface TestCoreOptions {
  runtime?: (home: string) => RuntimeSource;
  /** Appended to config.yaml. */
  extra?: string;
  /** Inline YAML specs by name (e.g. an ssh target) instead of a local target in a fresh directory. */
  specs?: Record<string, string>;
  providers?: readonly BackendProvider[];
  /** Files to put in SWITCHBOARD_HOME before the Core starts (e.g. known_hosts). */
  files?: Record<string, string>;
}

/**
 * `names` become local targets (the first is the default), each in its own directory, unless `specs` says otherwise.
 */
export async function makeTestCore(names: string[], opts: TestCoreOptions = {}): Promise<TestCore> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sb-tools-')));
  const home = join(root, 'home');
  mkdirSync(home);
  const dirs: Record<string, string> = {};
  const lines = ['terminal:', `  default_target: ${names[0]}`, '  targets:'];
  for (const n of names) {
    const spec = opts.specs?.[n];
    if (spec) {
      lines.push(`    ${n}: ${spec}`);
      continue;
    }
    dirs[n] = join(root, n);
    mkdirSync(dirs[n]!);
    lines.push(`    ${n}: { backend: local, cwd: ${dirs[n]} }`);
  }
  for (const [file, text] of Object.entries(opts.files ?? {})) writeFileSync(join(home, file), text, { mode: 0o600 });
  // Tests of tools judge tools, not approvals: a test Core runs dangerous commands (cleanup's rm -rf) unasked unless
  // the test configures approvals itself; hardline commands are still refused.
  const approvals = /^approvals:/m.test(opts.extra ?? '') ? '' : 'approvals:\n  mode: off\n';
  writeFileSync(join(home, 'config.yaml'), lines.join('\n') + '\n' + (opts.extra ?? '') + approvals);
  const options: CoreOptions = { home, providers: opts.providers ?? [localProvider] };
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
