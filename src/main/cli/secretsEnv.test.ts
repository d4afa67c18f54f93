// Issue 10, "Secrets never reach a command", end to end: a Core started with credentials in its environment runs
// `env` through every path (terminal, a background process, execute_code and its nested call, a pane) on a local,
// an SSH and a Docker target; no credential appears, the one named in approvals.env_passthrough does, and no
// exports file keeps an inherited value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadDockerEnv, loadSshEnv } from '../../../scripts/testEnv.js';
import { callTool, ensureBuilt, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';
import { connectCore } from '../transport/wsLink.js';
import { remoteEnvFile } from '../core/backends/providers.js';

const ssh = loadSshEnv();
const docker = loadDockerEnv();
const tag = randomBytes(5).toString('hex');

/**
 * The local exports files: an unsandboxed identity's in state/env, a sandboxed one's in its own folder under
 * state/sandbox.
 */
function localExportFiles(home: string): string[] {
  const inDir = (dir: string, pick: (name: string) => string | undefined): string[] =>
    existsSync(dir) ? readdirSync(dir).flatMap((n) => pick(n) ?? []) : [];
  return [
    ...inDir(join(home, 'state', 'env'), (n) => join(home, 'state', 'env', n)),
    // A sandboxed identity's exports file sits in its private /tmp (the shells inside see it as /tmp/.switchboard).
    ...inDir(join(home, 'state', 'sandbox'), (n) => {
      const file = join(home, 'state', 'sandbox', n, 'tmp', '.switchboard', 'exports.sh');
      return existsSync(file) ? file : undefined;
    }),
  ];
}

/** What the Core is started with: credentials (withheld), an ordinary variable and a passed-through key (kept). */
const withheld: Record<string, string> = {
  FAKE_API_KEY: `fake-api-${tag}`,
  AWS_SECRET_ACCESS_KEY: `aws-secret-${tag}`,
  AWS_ACCESS_KEY_ID: `AKIAFAKE${tag.toUpperCase()}`,
  GITHUB_TOKEN: `gh-token-${tag}`,
  OPENAI_API_KEY: `openai-${tag}`,
  DB_PASSWORD: `db-pw-${tag}`,
  SWITCHBOARD_X: `sb-x-${tag}`,
};
const passed = { PASSED_API_KEY: `passed-${tag}` };
const ordinary = { SB_ORDINARY_VAR: `ordinary-${tag}` };

function expectClean(where: string, text: string): void {
  for (const [name, value] of Object.entries(withheld)) {
    expect(text, `${where}: ${name}`).not.toContain(value);
  }
  expect(text, `${where}: SWITCHBOARD_ variables`).not.toMatch(/\bSWITCHBOARD_[A-Z_]+=/);
  expect(text, `${where}: the passed-through key`).toContain(passed.PASSED_API_KEY);
}

describe.skipIf(!ssh || !docker)('secrets never reach a command, on every path and backend', () => {
  const home = tempHome();
  // Beside the profile, never in it: an agent may change nothing in the profile.
  const localDir = join(tempHome('sb-work-'), 'work');
  let served: Served;
  const targets = ['here', 'remote', 'box'] as const;

  const call = (tool: string, args: Record<string, unknown>) => callTool(home, tool, args);

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(localDir);
    writeFileSync(join(home, 'known_hosts'), `${ssh!.knownHostsLine}\n`, { mode: 0o600 });
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  default_target: here',
        '  targets:',
        `    here: { backend: local, cwd: ${localDir} }`,
        `    remote: { backend: ssh, ssh_host: ${ssh!.host}, ssh_port: ${ssh!.port}, ssh_user: ${ssh!.user}, ` +
          `ssh_key: ${ssh!.key}, cwd: /tmp }`,
        `    box: { backend: docker, docker_image: "${docker!.pythonImage ?? docker!.image}", docker_host: ` +
          `"unix://${docker!.socket}", docker_network: none, cwd: /tmp }`,
        'approvals:',
        '  env_passthrough: [PASSED_API_KEY]',
        '',
      ].join('\n'),
    );
    served = await startServe(home, { ...withheld, ...passed, ...ordinary });
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(dirname(localDir), { recursive: true, force: true });
  });

  for (const t of targets) {
    describe(t, () => {
      it('terminal', async () => {
        const r = await call('terminal', { command: 'env', execution_target: t });
        expect(r.exit_code).toBe(0);
        expectClean(`${t} terminal`, String(r.output));
        // A local command still inherits the Core's ordinary variables; a remote one has its host's own environment.
        if (t === 'here') expect(String(r.output)).toContain(ordinary.SB_ORDINARY_VAR);
        else expect(String(r.output)).not.toContain(ordinary.SB_ORDINARY_VAR);
      });

      it('a background process', async () => {
        const started = await call('terminal', { command: 'env', background: true, execution_target: t });
        const done = await call('process', { action: 'wait', session_id: started.session_id, execution_target: t });
        expect(done.status).toBe('exited');
        const log = await call('process', { action: 'log', session_id: started.session_id, execution_target: t });
        expectClean(`${t} background`, String(log.output));
      });

      it('execute_code and a tool call made inside it', async () => {
        const code = [
          'import os',
          'import switchboard_tools as t',
          'print("".join("%s=%s\\n" % kv for kv in sorted(os.environ.items())))',
          'print("NESTED>>" + t.terminal("env")["output"])',
        ].join('\n');
        const r = await call('execute_code', { code, execution_target: t });
        expect(r.exit_code, String(r.output)).toBe(0);
        const [own, nested] = String(r.output).split('NESTED>>');
        expectClean(`${t} execute_code`, own ?? '');
        expectClean(`${t} nested terminal`, nested ?? '');
      });

      it('a pane', async () => {
        const { client, close } = await connectCore(
          served.url.replace('http', 'ws') + 'ws',
          served.token,
          undefined,
          served.approver,
        );
        try {
          let seen = '';
          client.on('pane.data', (e) => (seen += e.data));
          const pane = await client.call('pane.open', { execution_target: t, cols: 200, rows: 50 });
          // The end mark is split in the typed line so only the command's output holds it whole.
          await client.call('pane.write', { pane_id: pane.pane_id, data: 'env; echo "END""-OF-ENV"\r' });
          await expect.poll(() => seen, { timeout: 30_000 }).toContain('END-OF-ENV');
          expectClean(`${t} pane`, seen);
          await client.call('pane.close', { pane_id: pane.pane_id });
        } finally {
          close();
        }
      });

      it('the exports file keeps what a call exported, never an inherited value', async () => {
        const set = await call('terminal', { command: `export SB_SET_BY_CALL=set-${tag}`, execution_target: t });
        expect((await call('terminal', { command: 'echo "$SB_SET_BY_CALL"', execution_target: t })).output).toBe(
          `set-${tag}\n`,
        );
        const files =
          t === 'here'
            ? localExportFiles(home)
                .map((f) => readFileSync(f, 'utf8'))
                .join('\n')
            : String(
                (
                  await call('terminal', {
                    // This identity's file only: the SSH test account keeps other tests' files too (a managed container
                    // is ours alone).
                    command:
                      t === 'remote'
                        ? // In the host's sandbox (bubblewrap there), the file is in the identity's private /tmp.
                          'cat /tmp/.switchboard/exports.sh 2>/dev/null || ' +
                          `cat ${remoteEnvFile(`remote#${String(set.generation)}`, home)}`
                        : 'cat /tmp/.switchboard-env-*.sh',
                    execution_target: t,
                  })
                ).output,
              );
        expect(files).toContain(`set-${tag}`);
        for (const value of [...Object.values(withheld), ...Object.values(passed), ...Object.values(ordinary)])
          expect(files).not.toContain(value);
        expect(files).not.toMatch(/\b(PATH|HOME)=/);
      });
    });
  }
});
