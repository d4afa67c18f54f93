// How every command reports: one JSON document with --json, a table otherwise, one stderr line on error.
import { errorLine, toErrorPayload, type ErrorCode } from '../../shared/errors.js';

/** Refusals (the request was understood and said no) exit 2; failures to do it exit 1. */
const refusalCodes = new Set<ErrorCode>([
  'bad_request',
  'bad_config',
  'not_permitted',
  'registry_conflict',
  'unknown_target',
  'target_draining',
  'approval_denied',
  'unknown_tool',
  'unknown_process',
  'unknown_output',
  'too_large',
]);

export function exitCodeFor(code: ErrorCode): number {
  // As a shell reports a command ended by Ctrl+C (128 + SIGINT).
  if (code === 'cancelled') return 130;
  return refusalCodes.has(code) ? 2 : 1;
}

/** One stderr line and the exit status for it; the process ends once what was written has left it. */
export function fail(err: unknown): void {
  const payload = toErrorPayload(err);
  process.stderr.write(`switchboard: ${errorLine(payload)}\n`);
  process.exitCode = exitCodeFor(payload.code);
  exitWhenFlushed();
}

/**
 * End the process once stdout and stderr have handed everything to the OS. process.exit() right after a large
 * write to a pipe cuts it at the pipe's buffer (64 KiB), and a `--json` reader gets half a document with exit 0.
 */
export function exitWhenFlushed(): void {
  let pending = 2;
  const done = (): void => {
    if (--pending === 0) process.exit(process.exitCode ?? 0);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** A plain text table: header row, then rows, columns padded to the widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** Run a command action, turning any error into one stderr line and an exit status. */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      fail(err);
    }
  };
}

/**
 * Whether a serving command runs. Kept on the process, not in this module: each command is a bundle of its own
 * (scripts/build.mjs) with its own copy of this file, and main.ts asks its copy once the command's action is done.
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
