// The exported variables of one runtime identity that look like credentials: kept in the Core's memory, never in an
// env file. The shell reports them (shellWrap's secret frames) instead of writing them, and every later call of the
// identity gets them in its environment; they do not survive a restart of the Core, and the call that sets one says so.
import { rememberSecret } from '../../platform/index.js';
import type { SecretFrame } from './shellWrap.js';

export class SecretExports {
  private readonly values = new Map<string, string>();

  /** Take what one call reported; returns the names it set (or changed), for the note the caller reads. */
  apply(frames: readonly SecretFrame[]): string[] {
    const set: string[] = [];
    for (const { name, value } of frames) {
      if (value === undefined) this.values.delete(name);
      else {
        this.values.set(name, value);
        rememberSecret(value);
        set.push(name);
      }
    }
    return set;
  }

  /** The variables to hand the identity's next command. */
  env(): Record<string, string> {
    return Object.fromEntries(this.values);
  }
}

/** What the call that set a secret export reads after its output. */
export function keptInMemoryNote(names: readonly string[]): string {
  const list = names.join(', ');
  const them =
    names.length === 1 ? `${list} looks like a credential: it is` : `${list} look like credentials: they are`;
  const it = names.length === 1 ? 'it' : 'them';
  return (
    `[${them} kept in Switchboard's memory only, not in the exports file: ` +
    `later calls on this target see ${it} until Switchboard restarts; export ${it} again after a restart]`
  );
}
