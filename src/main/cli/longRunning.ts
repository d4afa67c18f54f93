// Whether a serving command (serve) runs: every other command exits when its action is done.

/**
 * Kept on the process, not in this module: each command is a bundle of its own (scripts/build.mjs) with its own copy
 * of this file, and main.ts asks its copy once the command's action is done.
 */
const longRunning = Symbol.for('switchboard.cli.longRunning');
const flags = globalThis as typeof globalThis & { [longRunning]?: boolean };

/** Commands that serve (serve) call this; every other command exits when its action is done,
 * even if a connection pool or watcher would keep Node's event loop alive. */
export function keepRunning(): void {
  flags[longRunning] = true;
}

export function isLongRunning(): boolean {
  return flags[longRunning] === true;
}
