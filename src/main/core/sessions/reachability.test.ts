// What Sessions says of a target's reachability between calls: a look at the port that answers clears what a call
// met, but not a changed host key or a refused login (a host whose key changed was shown reachable again).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BackendProvider, Environment, TargetSnapshot } from '../backends/index.js';
import { localProvider } from '../backends/providers.js';
import { Sessions } from './sessions.js';

const home = mkdtempSync(join(tmpdir(), 'sb-reach-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

const provider: BackendProvider = {
  ...localProvider,
  createEnvironment: () => ({}) as Environment,
};
const snapshot: TargetSnapshot = {
  name: 'box',
  generation: 'g1',
  identity: 'box#g1',
  source: 'runtime',
  state: 'active',
  spec: { backend: 'local' },
  flags: localProvider.flags,
  timeoutSec: 30,
};

type Step = ['report', string | undefined, boolean?] | ['look'];

describe('Sessions reachability', () => {
  it.each<[string, Step[], string | undefined]>([
    ['a refused connection, then a look that gets an answer', [['report', 'connection refused'], ['look']], undefined],
    ['a changed host key, then a look that gets an answer', [['report', 'key CHANGED', true], ['look']], 'key CHANGED'],
    [
      'the same changed key told again by the call that met it (not lasting), then a look',
      [['report', 'key CHANGED', true], ['report', 'key CHANGED'], ['look']],
      'key CHANGED',
    ],
    [
      'a changed key, then a connection that gets in',
      [['report', 'key CHANGED', true], ['report', undefined], ['look']],
      undefined,
    ],
    [
      'a changed key, then the host refuses instead: that one a look may clear',
      [['report', 'key CHANGED', true], ['report', 'connection refused'], ['look']],
      undefined,
    ],
  ])('%s', (_what, steps, left) => {
    const sessions = new Sessions(() => provider, { home, resolveSpec: () => undefined });
    sessions.environment(snapshot);
    for (const step of steps) {
      if (step[0] === 'look') sessions.lookedReachable(snapshot.identity);
      else sessions.reportReachability(snapshot.identity, step[1], step[2]);
    }
    expect(sessions.problem(snapshot.identity)).toBe(left);
  });
});
