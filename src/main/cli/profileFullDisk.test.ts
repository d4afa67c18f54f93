// The profile on a full or read-only disk (a real 2 MB tmpfs as SWITCHBOARD_HOME): `targets register` and `serve`
// fail with one line naming the file and what was being done, leave no temp file, and lose nothing already there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { join, relative } from 'node:path';
import { canMountTmpfs, fullDisk, type FullDisk } from '../core/tools/index.js';
import { ensureBuilt, runCli, startServe } from '../../../scripts/cliHarness.js';

/** Every file and folder under `dir` whose name says it is a temp file, relative to `dir`. */
function temps(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (/tmp/.test(e.name)) out.push(relative(dir, join(d, e.name)));
      if (e.isDirectory()) walk(join(d, e.name));
    }
  };
  walk(dir);
  return out;
}

const quoted = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const registered = (home: string): string[] =>
  Object.keys(
    (JSON.parse(readFileSync(join(home, 'runtime-targets.json'), 'utf8')) as { targets: Record<string, unknown> })
      .targets,
  );

(canMountTmpfs() ? describe : describe.skip)('the profile on a full disk', () => {
  let disk: FullDisk;
  beforeAll(() => {
    ensureBuilt();
    disk = fullDisk();
  });
  afterAll(() => disk?.unmount());

  it(
    'targets register: full, then read-only: one line naming the file; the registry keeps what it had; ' +
      'no temp file',
    async () => {
      const home = disk.dir;
      expect((await runCli(home, ['targets', 'register', 'kept', '--backend', 'local'])).status).toBe(0);
      const before = readFileSync(join(home, 'runtime-targets.json'), 'utf8');

      disk.fill();
      const full = await runCli(home, ['targets', 'register', 'more', '--backend', 'local']);
      expect(full.status).not.toBe(0);
      expect(full.stderr).toMatch(
        new RegExp(
          `^switchboard: cannot write ${quoted(join(home, 'runtime-targets.json'))} while registering target ` +
            `"more": no space left on the device \\(ENOSPC\\); nothing was changed — free some space on that ` +
            `disk, then try again\\n$`,
        ),
      );
      expect(readFileSync(join(home, 'runtime-targets.json'), 'utf8')).toBe(before);
      expect(temps(home)).toEqual([]);
      disk.free();

      disk.readOnly(true);
      try {
        const ro = await runCli(home, ['targets', 'remove', 'kept']);
        expect(ro.status).not.toBe(0);
        expect(ro.stderr).toMatch(
          new RegExp(
            `^switchboard: cannot create ${quoted(join(home, 'runtime-targets.json.lock'))} while removing ` +
              `target "kept": read-only file system \\(EROFS\\); nothing was changed — make the profile folder ` +
              `writable .*\\n$`,
          ),
        );
      } finally {
        disk.readOnly(false);
      }
      expect(registered(home)).toEqual(['kept']);

      // With room again, nothing stands in the way.
      expect((await runCli(home, ['targets', 'register', 'more', '--backend', 'local'])).status).toBe(0);
      expect(registered(home).sort()).toEqual(['kept', 'more']);
    },
  );

  it(
    'serve: a full disk at the run mark, then at core.json, then a read-only one: one line each, no temp file, ' +
      'no core.json, the profile free again',
    async () => {
      const home = disk.dir;
      disk.fill();
      const atMark = await startServe(home).then(
        async (s) => {
          await s.stop();
          return 'started';
        },
        (err: Error) => err.message,
      );
      expect(atMark).toMatch(
        new RegExp(
          `^serve exited with 2: switchboard: cannot write ${quoted(join(home, 'state', 'runs'))}/\\S+\\.json ` +
            `while starting the Core \\(marking this run, .*\\): no space left on the device \\(ENOSPC\\); ` +
            `nothing was changed — free some space on that disk, then try again$`,
        ),
      );
      expect(temps(home)).toEqual([]);

      // One block free: the run's mark takes it, and core.json finds none.
      const fill = join(home, 'fill');
      truncateSync(fill, statSync(fill).size - 4096);
      const atCoreFile = await startServe(home).then(
        async (s) => {
          await s.stop();
          return 'started';
        },
        (err: Error) => err.message,
      );
      expect(atCoreFile).toMatch(
        new RegExp(
          `^serve exited with 2: switchboard: cannot write ${quoted(join(home, 'core.json'))} while starting ` +
            `the Core \\(publishing where it listens, .*\\): no space left on the device \\(ENOSPC\\); ` +
            `nothing was changed — free some space on that disk, then try again$`,
        ),
      );
      expect(temps(home)).toEqual([]);
      expect(existsSync(join(home, 'core.json'))).toBe(false);
      // The run that could not start marked itself ended cleanly, in place: the next start has nothing to sweep.
      const marks = readdirSync(join(home, 'state', 'runs')).map(
        (f) => JSON.parse(readFileSync(join(home, 'state', 'runs', f), 'utf8')) as { clean: boolean },
      );
      expect(marks.every((m) => m.clean)).toBe(true);
      disk.free();

      disk.readOnly(true);
      try {
        const readOnly = await startServe(home).then(
          async (s) => {
            await s.stop();
            return 'started';
          },
          (err: Error) => err.message,
        );
        expect(readOnly).toMatch(
          new RegExp(
            `^serve exited with 2: switchboard: cannot create ${quoted(join(home, 'core.json.lock'))} while ` +
              `starting the Core \\(claiming the profile for it\\): read-only file system \\(EROFS\\); ` +
              `nothing was changed — make the profile folder writable .*$`,
          ),
        );
      } finally {
        disk.readOnly(false);
      }

      // The profile was let go of: a serve with room starts, and what was registered is still there.
      const served = await startServe(home);
      await served.stop();
      expect(registered(home).sort()).toEqual(['kept', 'more']);
    },
  );
});
