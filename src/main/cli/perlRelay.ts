// `switchboard mcp` started through Node (`node bin/switchboard.js mcp`: tests, the bench, client configs written
// before bin/switchboard): the relay is bin/mcp-relay.pl either way (it says why it is Perl), run here as a child
// with this process's stdio, and its exit status is this one's. This path keeps a Node process waiting beside it;
// bin/switchboard execs perl instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const RELAY = join('bin', 'mcp-relay.pl');

/** bin/mcp-relay.pl of this checkout, above wherever this code runs from (out/cli/main.cjs, a command's bundle). */
function relayScript(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, RELAY))) return join(dir, RELAY);
    if (dirname(dir) === dir) throw new Error(`${RELAY} is not above ${fileURLToPath(import.meta.url)}`);
  }
}

/**
 * glibc keeps up to twice the largest block it has freed (a 10 MB request's buffer) unless its trim threshold is set,
 * and reads it only at start: with it, the relay is back to its idle size after a large request (as bin/switchboard
 * sets it).
 */
const TRIM_THRESHOLD = '131072';

/** Run the relay until it exits, then exit as it did. */
export function runMcpRelay(): never {
  const run = spawnSync('perl', [relayScript()], {
    stdio: 'inherit',
    env: { MALLOC_TRIM_THRESHOLD_: TRIM_THRESHOLD, ...process.env },
  });
  if (run.error) {
    const missing = (run.error as NodeJS.ErrnoException).code === 'ENOENT';
    process.stderr.write(
      missing
        ? 'switchboard: `switchboard mcp` needs perl, which is not installed here — install perl\n'
        : `switchboard: cannot start perl for \`switchboard mcp\`: ${run.error.message}\n`,
    );
    process.exit(1);
  }
  // Ended by a signal: so is this process, as a shell's exec would have been.
  if (run.signal) process.kill(process.pid, run.signal);
  process.exit(run.status ?? 1);
}
