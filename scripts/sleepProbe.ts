// For tests that leave a command running on a target and check it was ended: sleeps with lengths unique to one
// test file and one case, found with pgrep on this machine (the test sshd and containers run here too).
import { spawnSync } from 'node:child_process';

/** Unique `sleep` lengths for one test file: `base` keeps files apart, `fraction` marks the file in `ps`. */
export function sleepSeconds(base: number, fraction: string): () => string {
  let next = base + (process.pid % 400) * 10;
  return () => `${next++}.${fraction}`;
}

/** Is a `sleep SECONDS` running (the command itself, not a process whose arguments merely mention it)? */
export function sleepRunning(seconds: string): boolean {
  return spawnSync('pgrep', ['-f', `^sleep ${seconds}$`], { encoding: 'utf8' }).stdout.trim() !== '';
}

/** Wait for a condition, polling every 100 ms; throws naming `what` after `tries` polls. */
export async function until(cond: () => boolean | Promise<boolean>, what: string, tries = 300): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`never: ${what}`);
}
