// CLI output piped to a reader that is slow to start reading arrives whole: a --json document over the pipe's
// 64 KiB buffer was cut (the process exited before stdout drained) with exit 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliPath, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

describe('output to a slow pipe', () => {
  const home = tempHome('sb-pipe-');
  // The workspace sits beside the profile: the profile is masked in the sandbox, and a search of it is refused to
  // agents.
  const work = tempHome('sb-pipe-work-');
  let served: Served;
  beforeAll(async () => {
    ensureBuilt();
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${work} }\n`);
    writeFileSync(
      join(work, 'big.txt'),
      Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(50)}`).join('\n') + '\n',
    );
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('a --json document larger than the pipe buffer is whole when the reader starts late', async () => {
    // A shell pipe into a reader that sleeps first: the CLI fills the 64 KiB pipe and must wait, not exit.
    const cmd =
      `'${process.execPath}' '${cliPath}' call search_files ` +
      `'{"pattern":"line","target":"content","limit":5000}' --json | (sleep 2; cat)`;
    const child = spawn('/bin/sh', ['-c', cmd], {
      env: { ...process.env, SWITCHBOARD_HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    const status = await new Promise<number | null>((r) => child.on('close', r));
    const text = Buffer.concat(chunks).toString('utf8');
    expect(status).toBe(0);
    expect(text.length).toBeGreaterThan(300 * 1024);
    const doc = JSON.parse(text) as { matches: Array<{ line: number }> };
    expect(doc.matches).toHaveLength(5000);
  });
});
