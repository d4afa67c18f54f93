// Where a file the build makes (out/…) is: beside the bundle that runs, or under the repository's out/ in tests.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SwitchboardError } from '../../../shared/errors.js';

/** The built file `relative` (e.g. `plugin-host/host.cjs`), looked for up from this module; `what` names it. */
export function builtFile(relative: string, what: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    for (const candidate of [join(dir, relative), join(dir, 'out', relative)])
      if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new SwitchboardError('internal', `${what} is not built (out/${relative})`, 'run: node scripts/build.mjs node');
}
