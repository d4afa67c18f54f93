// Running the app as another user in a test run as root: a test user of its own, and a copy of the built app that user
// can read (a checkout under /root is not). The sandbox's tests run the Core as root and as this user.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './testEnv.js';

export interface TestUser {
  name: string;
  uid: number;
  gid: number;
}

/** The unprivileged user the tests run the Core as (made when missing; scripts/fresh-machine.sh removes it). */
export const TEST_PERSON = 'sbperson';

/** The test user, made when missing; undefined when this process may not (not root), with why. */
export function testUser(name = TEST_PERSON): TestUser | { missing: string } {
  if (process.getuid?.() !== 0) return { missing: 'the tests are not run as root, so they cannot act as another user' };
  const id = (flag: string): number => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
  if (spawnSync('id', [name], { stdio: 'ignore' }).status !== 0) {
    const made = spawnSync('useradd', ['--no-create-home', '--shell', '/bin/bash', name], { encoding: 'utf8' });
    if (made.status !== 0) return { missing: `useradd ${name} failed: ${made.stderr.trim()}` };
  }
  return { name, uid: id('-u'), gid: id('-g') };
}

/** Whether `user` can read `file` and every folder on the way to it. */
function readable(user: TestUser, file: string): boolean {
  return spawnSync('test', ['-r', file], { uid: user.uid, gid: user.gid }).status === 0;
}

/**
 * Where `user` finds the built app (bin/, out/, node_modules/, package.json): the checkout when it can read it,
 * else a copy made of hard links (same file system) or files, in a folder of its own; `remove` drops that copy.
 */
export function appFor(user: TestUser): { root: string; remove(): void } {
  if (readable(user, join(repoRoot, 'out', 'cli', 'main.cjs'))) return { root: repoRoot, remove: () => undefined };
  const root = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : '/tmp', 'sb-app-'));
  chmodSync(root, 0o755);
  for (const part of ['bin', 'out', 'node_modules', 'package.json']) {
    const linked = spawnSync('cp', ['-al', join(repoRoot, part), root]);
    if (linked.status !== 0) spawnSync('cp', ['-a', join(repoRoot, part), root]);
  }
  if (!readable(user, join(root, 'out', 'cli', 'main.cjs')))
    throw new Error(`${user.name} cannot read the app copied to ${root}`);
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
