// The per-run records of containers (no engine needed): what a start keeps, drops, and tries again.
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordContainer, stopCrashedRunContainers, UNSTOPPED } from './runContainers.js';

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(): string {
  const h = mkdtempSync(join(tmpdir(), 'sb-runc-'));
  homes.push(h);
  return h;
}

const record = (h: string, run: string): string => join(h, 'state', 'containers', `${run}.json`);
const nowhere = 'unix:///nonexistent/docker.sock';

describe('runContainers', () => {
  it('records each container once per run', () => {
    const h = home();
    recordContainer(h, 'r1', nowhere, 'abc');
    recordContainer(h, 'r1', nowhere, 'abc');
    recordContainer(h, 'r1', undefined, 'def');
    expect(JSON.parse(readFileSync(record(h, 'r1'), 'utf8'))).toEqual([{ host: nowhere, id: 'abc' }, { id: 'def' }]);
  });

  it(
    "at start: drops the record of a clean run, keeps a live run's, and keeps a crashed run's whose engine did " +
      'not answer',
    async () => {
      const h = home();
      recordContainer(h, 'clean', nowhere, 'a');
      recordContainer(h, 'live', nowhere, 'b');
      recordContainer(h, 'crashed', nowhere, 'c');
      // A live run still has its run file (processes/coreRuns.ts); a clean one's was removed by this start.
      mkdirSync(join(h, 'state', 'runs'), { recursive: true });
      writeFileSync(join(h, 'state', 'runs', 'live.json'), '{}');
      const reports = await stopCrashedRunContainers(h, ['crashed']);
      expect(existsSync(record(h, 'clean'))).toBe(false);
      expect(existsSync(record(h, 'live'))).toBe(true);
      expect(existsSync(record(h, 'crashed'))).toBe(true);
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ where: `containers on ${nowhere}`, found: 0 });
      expect(reports[0]?.problem).toBeTruthy();
    },
  );

  it('what a clean stop could not stop is tried by every start until its engine answers', async () => {
    const h = home();
    recordContainer(h, UNSTOPPED, nowhere, 'u');
    const reports = await stopCrashedRunContainers(h, []);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.problem).toBeTruthy();
    expect(existsSync(record(h, UNSTOPPED))).toBe(true);
  });

  it('a profile that never recorded anything has nothing to sweep', async () => {
    expect(await stopCrashedRunContainers(home(), ['x'])).toEqual([]);
  });
});
