// Where the profile lives (SWITCHBOARD_HOME), for the Core and for CLI commands that never build one.
import { chmodSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export function switchboardHome(): string {
  return process.env.SWITCHBOARD_HOME || join(homedir(), '.switchboard');
}

/** Create the profile directory, private to its user. */
export function prepareHome(home: string): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  try {
    chmodSync(home, 0o700);
  } catch {
    /* not ours to fix */
  }
}
