// A Core with SSH and Docker targets probes both at start (their health shows in the sidebar) without loading
// dockerode, whose require brings gRPC and protobufjs: the idle Core's memory (issue 13, P7). Once a Docker target
// has run a command, dockerode is loaded, still without gRPC, protobufjs or ssh2, and MCP requests load no zod 3
// (issue 27, P12). A real `switchboard serve` against the test sshd and dockerd; what it loaded is read from its
// require.cache when it is stopped.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  callTool,
  ensureBuilt,
  mcpClients,
  runCli,
  startServe,
  tempHome,
  type Served,
} from '../../../../scripts/cliHarness.js';
import { loadDockerEnv, loadSshEnv, type DockerTestEnv } from '../../../../scripts/testEnv.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();

const dockerTarget = (d: DockerTestEnv): string =>
  `    ctr: { backend: docker, docker_image: "${d.image}", docker_host: "unix://${d.socket}", docker_network: none }`;

/** A served Core on a fresh profile with these target lines; `loaded()` stops it and says what it had loaded. */
function servedCore(prefix: string, targets: (home: string) => string[]) {
  const core = { home: '', served: undefined as Served | undefined };
  const loadedFile = (): string => join(core.home, 'loaded.json');
  beforeAll(async () => {
    ensureBuilt();
    core.home = tempHome(prefix);
    const preload = join(core.home, 'preload.cjs');
    // Written when the Core is stopped (SIGTERM), before its own handler runs.
    writeFileSync(
      preload,
      "process.on('SIGTERM', () => require('node:fs').writeFileSync(process.env.SB_TEST_LOADED, " +
        'JSON.stringify(Object.keys(require.cache))));\n',
    );
    writeFileSync(join(core.home, 'config.yaml'), ['terminal:', '  targets:', ...targets(core.home), ''].join('\n'));
    core.served = await startServe(core.home, {
      NODE_OPTIONS: `--require ${preload}`,
      SB_TEST_LOADED: loadedFile(),
    });
  }, 60_000);
  afterAll(async () => {
    await core.served?.stop();
    rmSync(core.home, { recursive: true, force: true });
  });
  return {
    get home() {
      return core.home;
    },
    get served() {
      return core.served;
    },
    async loaded(): Promise<string[]> {
      await core.served?.stop();
      core.served = undefined;
      return JSON.parse(readFileSync(loadedFile(), 'utf8')) as string[];
    },
  };
}

describe.skipIf(!ssh || !docker)('backend libraries at Core start', () => {
  const core = servedCore('sb-lazy-libs-', (home) => {
    const s = ssh!;
    writeFileSync(join(home, 'known_hosts'), s.knownHostsLine + '\n', { mode: 0o600 });
    return [
      `    local: { backend: local, cwd: ${home} }`,
      `    box: { backend: ssh, ssh_host: ${s.host}, ssh_port: ${s.port}, ssh_user: ${s.user}, ssh_key: ${s.key} }`,
      dockerTarget(docker!),
    ];
  });

  it('probes the SSH and Docker targets, and has not loaded dockerode, gRPC or protobufjs', async () => {
    // Both probes answered: the SSH one authenticated and ran `true`, the Docker one asked the engine.
    let health: Record<string, string | undefined> = {};
    for (let i = 0; i < 300 && !(health.box === 'reachable' && health.ctr === 'reachable'); i++) {
      const r = await runCli(core.home, ['targets', 'list', '--json']);
      const listed = JSON.parse(r.stdout) as { targets: { name: string; health?: { status: string } }[] };
      health = Object.fromEntries(listed.targets.map((t) => [t.name, t.health?.status]));
      if (health.box !== 'reachable' || health.ctr !== 'reachable') await new Promise((r) => setTimeout(r, 200));
    }
    expect(health).toMatchObject({ box: 'reachable', ctr: 'reachable' });
    const loaded = await core.loaded();
    expect(loaded.some((m) => m.endsWith('/out/cli/commands/serve.cjs'))).toBe(true);
    expect(loaded.filter((m) => /\/node_modules\/(dockerode|docker-modem|@grpc|protobufjs)\//.test(m))).toEqual([]);
  });
});

describe.skipIf(!docker)('backend libraries after a Docker call', () => {
  const core = servedCore('sb-lazy-docker-', () => [dockerTarget(docker!)]);

  it('runs the command through dockerode, which has not loaded gRPC, protobufjs or ssh2', async () => {
    const r = await callTool(core.home, 'terminal', { command: 'echo in-$((6*7))', execution_target: 'ctr' });
    expect(r).toMatchObject({ output: 'in-42\n', exit_code: 0 });
    // Over MCP too: the MCP SDK the Core runs from then on leaves zod 3's schema converter out (scripts/build.mjs).
    const { http, stdio } = await mcpClients(core.home, core.served!);
    const listed = await http.listTools();
    expect(listed.tools.find((t) => t.name === 'terminal')?.inputSchema.properties).toHaveProperty('command');
    const viaMcp = await http.callTool({
      name: 'terminal',
      arguments: { command: 'echo mcp', execution_target: 'ctr' },
    });
    expect(viaMcp.isError).toBeFalsy();
    await Promise.all([http.close(), stdio.close()]);
    const loaded = await core.loaded();
    expect(loaded.some((m) => /\/node_modules\/dockerode\/lib\/docker\.js$/.test(m))).toBe(true);
    // The stand-ins (backends/docker/dockerodeLib.ts) hold the places of the modules that would load them.
    expect(loaded.filter((m) => /\/node_modules\/(@grpc|protobufjs|ssh2|zod-to-json-schema|zod)\//.test(m))).toEqual(
      [],
    );
  });
});
