// A Core in the test's own process (startHost) on a fresh profile, for one test file: its config has a local target
// `a` in a work folder of its own, the shells it starts get a HOME of their own (not the machine's rc files), and it
// is started before the file's tests and closed and removed after them.
import { afterAll, beforeAll } from 'vitest';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHost, type Host } from '../src/main/transport/host.js';

export interface FileHost {
  /** The profile folder (SWITCHBOARD_HOME). */
  home: string;
  /** Target `a`'s cwd. */
  work: string;
  /** The running Core, once the file's tests run. */
  readonly host: Host;
}

/** `config` is added to the profile's config.yaml after the target (e.g. an `approvals:` block). */
export function hostForFile(prefix: string, config = ''): FileHost {
  const root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const home = join(root, 'profile');
  const work = join(root, 'work');
  const savedHome = process.env.HOME;
  let host: Host | undefined;
  beforeAll(async () => {
    for (const d of [home, work, join(root, 'home')]) mkdirSync(d);
    process.env.HOME = join(root, 'home');
    writeFileSync(
      join(home, 'config.yaml'),
      `terminal:\n  targets:\n    a: { backend: local, cwd: ${work} }\n${config}`,
    );
    host = await startHost({ mode: 'serve', home });
  });
  afterAll(async () => {
    await host?.close();
    process.env.HOME = savedHome;
    rmSync(root, { recursive: true, force: true });
  });
  return {
    home,
    work,
    get host(): Host {
      if (!host) throw new Error('the Core is not started yet: use it inside a test');
      return host;
    },
  };
}
