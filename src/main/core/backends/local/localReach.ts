// The local backend's health look: this machine is there; what can be wrong is the spec's cwd, seen with one stat here
// (a sandbox binds its workspace at the same path), without starting a sandbox or a shell.
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { posix } from 'node:path';
import type { IdleProbeResult, TargetSnapshot } from '../provider.js';
import { expandPath } from '../../sandbox/index.js';

export async function localReach(snapshot: TargetSnapshot): Promise<IdleProbeResult> {
  const spec = snapshot.spec.cwd;
  if (typeof spec !== 'string' || spec === '' || spec === '~') return { ok: true, detail: 'this machine' };
  const cwd = expandPath(spec, homedir());
  if (await isDir(cwd)) return { ok: true, detail: 'this machine' };
  let parent = cwd;
  do parent = posix.dirname(parent);
  while (parent !== '/' && !(await isDir(parent)));
  return {
    ok: true,
    detail: 'this machine',
    cwdProblem: `cwd ${cwd} does not exist on ${snapshot.name}; commands and panes start in ${parent}`,
  };
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
