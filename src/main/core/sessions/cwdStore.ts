// Where each runtime identity's tracked cwd is kept across Core restarts: one small file per identity under
// state/cwd/ (beside state/env/, where the exports are kept, and apart from them). A target replaced while the Core
// was down has a new identity: its old file is found by the target's name, said, and dropped.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { echoed } from '../../../shared/echoed.js';
import { atomicWriteSync } from '../platform/index.js';

const SavedCwd = z.object({ identity: z.string(), name: z.string(), cwd: z.string().startsWith('/') });
type SavedCwd = z.infer<typeof SavedCwd>;

/** What was kept for an identity: its cwd, or why there is none to restore (said in the next result). */
export type KeptCwd = { cwd: string } | { reset: string } | undefined;

export class CwdStore {
  constructor(
    private readonly dir: string,
    private readonly log: (line: string) => void = (line) => process.stderr.write(`switchboard: ${line}\n`),
  ) {}

  private file(identity: string): string {
    return join(this.dir, `${createHash('sha256').update(identity).digest('hex').slice(0, 16)}.json`);
  }

  /**
   * The cwd kept for `identity` (of the target `name`), or why it was not kept. `live` says which identities this
   * Core runs: one of those replaced under it is released (and its file removed) by the Core, and needs no word.
   */
  load(identity: string, name: string, live: (identity: string) => boolean = () => false): KeptCwd {
    const path = this.file(identity);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
        return {
          reset: `its saved cwd (${path}) could not be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`,
        };
      return this.replaced(identity, name, live);
    }
    const saved = parse(text);
    if (!saved || saved.identity !== identity) return { reset: `its saved cwd (${path}) was not readable as one` };
    return { cwd: saved.cwd };
  }

  /** Keep `cwd` for `identity`: whole or not at all (a temp file renamed over the old one). A failure is logged. */
  save(identity: string, name: string, cwd: string): void {
    const path = this.file(identity);
    try {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      atomicWriteSync(path, JSON.stringify({ identity, name, cwd } satisfies SavedCwd));
    } catch (err) {
      this.log(
        `could not keep the cwd of ${echoed(identity)} (it will not survive a restart): ${(err as Error).message}`,
      );
    }
  }

  /** The identity is gone for good (its target removed or replaced). */
  remove(identity: string): void {
    rmSync(this.file(identity), { force: true });
  }

  /** No file for this identity: one of an earlier identity of the same target means it was replaced meanwhile. */
  private replaced(identity: string, name: string, live: (identity: string) => boolean): KeptCwd {
    let files: string[];
    try {
      files = readdirSync(this.dir).filter((f) => f.endsWith('.json'));
    } catch {
      return undefined; // nothing was ever kept
    }
    for (const f of files) {
      const saved = parse(readOr(join(this.dir, f)));
      if (!saved || saved.name !== name || saved.identity === identity || live(saved.identity)) continue;
      rmSync(join(this.dir, f), { force: true });
      return {
        reset:
          `target "${echoed(name)}" was replaced (it was ${echoed(saved.identity)}), ` +
          `and a cwd belongs to one generation`,
      };
    }
    return undefined;
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    // no saved cwd yet
    return '';
  }
}

function parse(text: string): SavedCwd | undefined {
  try {
    const r = SavedCwd.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    // a damaged file keeps no cwd: work starts in the target's own
    return undefined;
  }
}
