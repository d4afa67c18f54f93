// A served Core whose runtime-targets.json is garbage for a few seconds keeps its runtime targets' state:
// cwds, and the managed Docker container with the files written in it (issue: a bad read looked like removal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadDockerEnv } from '../../../../scripts/testEnv.js';
import { ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../../scripts/cliHarness.js';

const docker = loadDockerEnv();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a briefly unreadable registry', () => {
  const home = tempHome('sb-hold-');
  const work = join(home, 'work');
  let served: Served;

  const ok = async (args: string[]): Promise<Record<string, unknown>> => {
    const r = await runCli(home, [...args, '--json']);
    if (r.status !== 0) throw new Error(`switchboard ${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  const call = (args: Record<string, unknown>) => ok(['call', 'terminal', JSON.stringify(args)]);

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(join(work, 'deeper'), { recursive: true });
    writeFileSync(join(home, 'config.yaml'), `terminal:\n  targets:\n    local: { backend: local, cwd: ${home} }\n`);
    served = await startServe(home);
  });
  afterAll(async () => {
    if (docker) await runCli(home, ['targets', 'remove', 'box']);
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  /** Garbage over the registry for longer than the Core's 1 s poll, then the good bytes back. */
  async function garbleFor(ms: number, garbage: string): Promise<void> {
    const file = join(home, 'runtime-targets.json');
    const good = readFileSync(file);
    writeFileSync(file, garbage);
    await sleep(ms);
    try {
      // While it is garbage the Core keeps listing the runtime targets, and the problem is shown.
      const listed = (await ok(['targets', 'list'])) as {
        targets: Array<{ name: string; source: string }>;
        problems: string[];
      };
      expect(listed.targets.filter((t) => t.source === 'runtime').length).toBeGreaterThan(0);
      expect(listed.problems.join('\n')).toContain('runtime-targets.json');
    } finally {
      writeFileSync(file, good);
    }
    await sleep(1500);
  }

  it('keeps a local runtime target and its cwd through half-written JSON and a newer version', async () => {
    await ok(['targets', 'register', 'rt', '--backend', 'local', '--cwd', work]);
    expect((await call({ command: 'cd deeper', execution_target: 'rt' })).cwd).toBe(join(work, 'deeper'));
    await garbleFor(2500, '{"version":1,"targets":{');
    expect(await call({ command: 'pwd', execution_target: 'rt' })).toMatchObject({
      output: `${join(work, 'deeper')}\n`,
      exit_code: 0,
    });
    await garbleFor(2500, JSON.stringify({ version: 2, targets: {} }));
    expect(await call({ command: 'pwd', execution_target: 'rt' })).toMatchObject({
      output: `${join(work, 'deeper')}\n`,
      exit_code: 0,
    });
  });

  it.skipIf(!docker)('keeps a managed container and the file written in it', async () => {
    const d = docker!;
    await ok([
      'targets',
      'register',
      'box',
      '--backend',
      'docker',
      '--image',
      d.image,
      '--cwd',
      '/root',
      '--set',
      `docker_host=unix://${d.socket}`,
    ]);
    const first = await call({ command: 'echo kept > /root/marker; hostname', execution_target: 'box' });
    expect(first.exit_code).toBe(0);
    await garbleFor(4000, '{"version":1,"targets":{');
    const after = await call({ command: 'cat /root/marker; hostname', execution_target: 'box' });
    expect(after).toMatchObject({ exit_code: 0, output: `kept\n${String(first.output)}` });
  });
});
