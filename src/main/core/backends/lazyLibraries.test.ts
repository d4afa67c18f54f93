// A Core with SSH and Docker targets probes both at start (their health shows in the sidebar) without loading
// dockerode, whose require brings gRPC and protobufjs: the idle Core's memory (issue 13, P7). A real `switchboard
// serve` against the test sshd and dockerd; what it loaded is read from its require.cache when it is stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../../scripts/cliHarness.js';
import { loadDockerEnv, loadSshEnv } from '../../../../scripts/testEnv.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();

describe.skipIf(!ssh || !docker)('backend libraries at Core start', () => {
  let home: string;
  let served: Served | undefined;
  const loadedFile = (): string => join(home, 'loaded.json');

  beforeAll(async () => {
    ensureBuilt();
    home = tempHome('sb-lazy-libs-');
    const preload = join(home, 'preload.cjs');
    // Written when the Core is stopped (SIGTERM), before its own handler runs.
    writeFileSync(
      preload,
      "process.on('SIGTERM', () => require('node:fs').writeFileSync(process.env.SB_TEST_LOADED, " +
        'JSON.stringify(Object.keys(require.cache))));\n',
    );
    const s = ssh!;
    const d = docker!;
    writeFileSync(join(home, 'known_hosts'), s.knownHostsLine + '\n', { mode: 0o600 });
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  targets:',
        `    local: { backend: local, cwd: ${home} }`,
        `    box: { backend: ssh, ssh_host: ${s.host}, ssh_port: ${s.port}, ssh_user: ${s.user}, ssh_key: ${s.key} }`,
        `    ctr: { backend: docker, docker_image: "${d.image}", docker_host: "unix://${d.socket}", ` +
          `docker_network: none }`,
        '',
      ].join('\n'),
    );
    served = await startServe(home, { NODE_OPTIONS: `--require ${preload}`, SB_TEST_LOADED: loadedFile() });
  }, 60_000);

  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('probes the SSH and Docker targets, and has not loaded dockerode, gRPC or protobufjs', async () => {
    // Both probes answered: the SSH one authenticated and ran `true`, the Docker one asked the engine.
    let health: Record<string, string | undefined> = {};
    for (let i = 0; i < 300 && !(health.box === 'reachable' && health.ctr === 'reachable'); i++) {
      const r = await runCli(home, ['targets', 'list', '--json']);
      const listed = JSON.parse(r.stdout) as { targets: { name: string; health?: { status: string } }[] };
      health = Object.fromEntries(listed.targets.map((t) => [t.name, t.health?.status]));
      if (health.box !== 'reachable' || health.ctr !== 'reachable') await new Promise((r) => setTimeout(r, 200));
    }
    expect(health).toMatchObject({ box: 'reachable', ctr: 'reachable' });
    await served!.stop();
    served = undefined;
    const loaded = JSON.parse(readFileSync(loadedFile(), 'utf8')) as string[];
    expect(loaded.some((m) => m.endsWith('/out/cli/commands/serve.cjs'))).toBe(true);
    expect(loaded.filter((m) => /\/node_modules\/(dockerode|docker-modem|@grpc|protobufjs)\//.test(m))).toEqual([]);
  });
});
