// Issue 24, "no secret in any output; the scrub judges values too", end to end on a real `switchboard serve`:
// secrets planted in an asked command, in Activity and in audit.jsonl are found by no surface (approvals list --json,
// approvals.list as an agent, activity.list, audit.jsonl, any file of the profile); credentials under innocent names
// and a plugin's strip_env_keys never reach a local command; an exported token lives in the Core's memory only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PendingApproval } from '../../shared/approvals.js';
import {
  callTool,
  cliPath,
  ensureBuilt,
  runCli,
  startServe,
  tempHome,
  type Served,
} from '../../../scripts/cliHarness.js';
import { connectCore } from '../transport/wsLink.js';
import { writeTestPlugin } from '../core/plugins/testPlugin.js';
import { loadDockerEnv, loadSshEnv } from '../../../scripts/testEnv.js';
import { remoteEnvFile } from '../core/backends/providers.js';
import { shellQuote } from '../core/platform/index.js';

const tag = randomBytes(5).toString('hex');
const ssh = loadSshEnv();
const docker = loadDockerEnv();

/** Every file under a folder, as text (binary bytes too: a secret is looked for as bytes). */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push({ path, text: readFileSync(path).toString('latin1') });
  }
  return out;
}

/** Credentials in the Core's environment under names no list knows: only their values give them away. */
const valueShaped = {
  MY_THING: `ghp_${tag}abcdefghijklmnopqrstuvwxyz0123`,
  DB: `postgres://u:pw${tag}@h/db`,
  GH_PAT: `pat-${tag}-value`,
  DATABASE_URL: `postgres://admin:dbpw${tag}@db.example/app`,
  ACMEBOX_REGION: `acme-region-${tag}`,
};
/** Everyday variables that must still reach a command. */
const innocent = {
  EDITOR: 'vim',
  NODE_ENV: 'production',
  SITE_URL: `https://example.com/${tag}-site`,
  LANG: 'C.UTF-8',
};

/** Secrets written into commands an agent sends (asked, run, failed). */
const planted = {
  curl: `curlpw${tag}`,
  bearer: `bearer${tag}abcdefgh`,
  mysql: `mysqlpw${tag}`,
  url: `urlpw${tag}`,
  pat: `ghpat${tag}`,
  user: `userpw${tag}`,
  pg: `pgpw${tag}`,
};
const askedCommand =
  `rm -rf ./gone-${tag} && curl -u admin:${planted.curl} -H "Authorization: ` +
  `Bearer ${planted.bearer}" https://127.0.0.1:9/ ; mysql -u root -p${planted.mysql} -e "select 1"`;

/** Start an agent's tool call in the background (it waits while its approval is pending). */
function agentCall(home: string, args: Record<string, unknown>): Promise<number | null> {
  const child = spawn(process.execPath, [cliPath, 'call', 'terminal', JSON.stringify(args), '--json'], {
    env: { ...process.env, SWITCHBOARD_HOME: home },
    stdio: 'ignore',
  });
  return new Promise((resolve) => child.on('close', resolve));
}

describe('no secret in any output; the scrub judges values', { timeout: 300_000 }, () => {
  const home = tempHome('sb-sec-');
  const work = tempHome('sb-sec-work-');
  let served: Served;
  const wsUrl = (): string => served.url.replace('http', 'ws') + 'ws';

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(join(work, 'boxed'));
    mkdirSync(join(work, 'bare'));
    mkdirSync(join(work, 'plug'));
    // Its exports file in the work folder, not in the home's cache.
    writeTestPlugin(home, {
      name: 'acme',
      flags: { strip_env_keys: ['ACMEBOX_*'], cache_path_base: join(work, 'cache') },
    });
    if (ssh) writeFileSync(join(home, 'known_hosts'), `${ssh.knownHostsLine}\n`, { mode: 0o600 });
    writeFileSync(join(home, 'plugins', 'enabled.json'), JSON.stringify({ enabled: ['acme'] }));
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  targets:',
        `    boxed: { backend: local, cwd: ${join(work, 'boxed')} }`,
        `    bare: { backend: local, cwd: ${join(work, 'bare')}, sandbox: off }`,
        `    plug: { backend: acme, cwd: ${join(work, 'plug')}, root: ${join(work, 'plug')} }`,
        ...(ssh
          ? [
              `    remote: { backend: ssh, ssh_host: ${ssh.host}, ssh_port: ${ssh.port}, ` +
                `ssh_user: ${ssh.user}, ssh_key: ${ssh.key}, cwd: /tmp }`,
            ]
          : []),
        ...(docker
          ? [
              `    box: { backend: docker, docker_image: "${docker.image}", docker_host: ` +
                `"unix://${docker.socket}", docker_network: none, cwd: /tmp }`,
            ]
          : []),
        'approvals:',
        '  mode: ask',
        '  timeout: 600',
        '',
      ].join('\n'),
    );
    served = await startServe(home, { ...valueShaped, ...innocent });
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * The target's exports file, read through a call (an SSH host's, a container's, the plugin's), or none (local: under
   * the profile).
   */
  const exportsFile = async (t: string, generation: string): Promise<string> => {
    const path =
      t === 'remote'
        ? // In the host's sandbox (bubblewrap there), the file is in the identity's private /tmp.
          `/tmp/.switchboard/exports.sh 2>/dev/null || cat ${remoteEnvFile(`remote#${generation}`, home)}`
        : t === 'box'
          ? '/tmp/.switchboard-env-*.sh'
          : t === 'plug'
            ? `${join(work, 'cache')}/env-*.sh`
            : undefined;
    return path
      ? String((await callTool(home, 'terminal', { command: `cat ${path}`, execution_target: t })).output)
      : '';
  };

  for (const t of ['boxed', 'bare', 'plug']) {
    it(`${t}: credentials under innocent names and a plugin's strip_env_keys never reach a local command`, async () => {
      const out = String((await callTool(home, 'terminal', { command: 'env', execution_target: t })).output);
      for (const [name, value] of Object.entries(valueShaped)) expect(out, name).not.toContain(value);
      expect(out).toContain(`SITE_URL=${innocent.SITE_URL}`);
      expect(out).toContain('EDITOR=vim');
      expect(out).toContain('NODE_ENV=production');
      expect(out).toMatch(/^PATH=/m);
      expect(out).toMatch(/^HOME=/m);
    });
  }

  for (const t of ['boxed', 'bare', 'plug', ...(ssh ? ['remote'] : []), ...(docker ? ['box'] : [])]) {
    it(
      `${t}: an exported token lives in the Core's memory across calls, in no file, ` +
        `and the call is told it will not survive a restart`,
      async () => {
        const token = `tok-${tag}-${t}`;
        const shaped = `glpat-${tag}${t}0123456789`;
        const set = await callTool(home, 'terminal', {
          command: `export MY_TOKEN=${token} SOME_THING=${shaped} PLAIN_${t}=plain-${tag}-${t}`,
          execution_target: t,
        });
        expect(String(set.output)).toMatch(
          new RegExp(
            `MY_TOKEN, SOME_THING look like credentials: they are kept in Switchboard's memory ` +
              'only.*until Switchboard restarts',
          ),
        );
        expect(String(set.output)).not.toContain(token);
        const again = await callTool(home, 'terminal', {
          command: `echo "[$MY_TOKEN] [$SOME_THING] [$PLAIN_${t}]"`,
          execution_target: t,
        });
        expect(again.output).toBe(`[${token}] [${shaped}] [plain-${tag}-${t}]\n`);
        // A third call that exports something else keeps them too; a value with quotes, a newline and UTF-8 comes back
        // whole.
        const tricky = `it's "q" $x \\ ${tag}\nline two ✓`;
        await callTool(home, 'terminal', {
          command: `export OTHER_${t}=1 TRICKY_SECRET=${shellQuote(tricky)}`,
          execution_target: t,
        });
        expect(
          (
            await callTool(home, 'terminal', {
              command: 'echo "[$MY_TOKEN]"; printf %s "$TRICKY_SECRET"',
              execution_target: t,
            })
          ).output,
        ).toBe(`[${token}]\n${tricky}`);
        // The calls that printed them: Activity shows the values masked (the Core knows them), as audit.jsonl keeps the
        // commands.
        const person = await connectCore(wsUrl(), served.token, undefined, served.approver);
        const activity = JSON.stringify(await person.client.call('activity.list', {}));
        person.close();
        expect(activity).toContain('[redacted]');
        for (const value of [token, shaped, 'line two'])
          expect(activity, `activity.list: ${value}`).not.toContain(value);
        const onTarget = await exportsFile(t, String(set.generation));
        const files = [...filesUnder(home), ...filesUnder(work), { path: `${t}'s exports file`, text: onTarget }];
        // The file looked at is the target's own: an ordinary export is still kept in it.
        expect(
          files.some((f) => f.text.includes(`plain-${tag}-${t}`)),
          'the ordinary export in the exports file',
        ).toBe(true);
        if (['remote', 'box', 'plug'].includes(t)) expect(onTarget).toContain(`plain-${tag}-${t}`);
        for (const f of files) {
          expect(f.text, f.path).not.toContain(token);
          expect(f.text, f.path).not.toContain(shaped);
          expect(f.text, f.path).not.toContain('line two');
        }
        // Unset is remembered too.
        await callTool(home, 'terminal', { command: 'unset MY_TOKEN', execution_target: t });
        expect(
          (await callTool(home, 'terminal', { command: 'echo "[$MY_TOKEN] [$SOME_THING]"', execution_target: t }))
            .output,
        ).toBe(`[] [${shaped}]\n`);
      },
    );
  }

  it(
    'an asked command, Activity and audit.jsonl: no surface shows a planted secret; ' +
      'the person alone sees the asked command whole',
    async () => {
      const agent = await connectCore(wsUrl(), served.token);
      const person = await connectCore(wsUrl(), served.token, undefined, served.approver);
      try {
        const asked = agentCall(home, { command: askedCommand, execution_target: 'bare' });
        let viaAgent: PendingApproval[] = [];
        await expect
          .poll(async () => (viaAgent = await agent.client.call('approvals.list', {})).length, { timeout: 30_000 })
          .toBeGreaterThan(0);
        const cli = await runCli(home, ['approvals', 'list', '--json']);
        expect(cli.status).toBe(0);
        const cliText = await runCli(home, ['approvals', 'list']);
        const pending = await person.client.call('approvals.pending', {});
        expect(pending[0]!.command, 'the person method carries the command whole').toBe(askedCommand);
        expect(viaAgent[0]!.command).toContain('rm -rf ./gone-');
        for (const [where, text] of [
          ['approvals.list', JSON.stringify(viaAgent)],
          ['approvals list --json', cli.stdout],
          ['approvals list', cliText.stdout],
        ] as const) {
          for (const secret of [planted.curl, planted.bearer, planted.mysql])
            expect(text, `${where}: ${secret}`).not.toContain(secret);
        }
        await person.client.call('approvals.decide', { id: pending[0]!.id, decision: 'deny' });
        await asked;

        // Calls that run (or fail) with secrets in their command and their output.
        const runs = [
          `echo GH_PAT=${planted.pat}; echo "login bob password ${planted.user}" >/dev/null`,
          `curl -s -u admin:${planted.curl} http://127.0.0.1:9/ || echo "psql postgres://u:${planted.url}@h/db"`,
          `PGPASSWORD=${planted.pg} sh -c 'echo "$PGPASSWORD"' >/dev/null; echo "-u admin:${planted.user}"`,
          `exit 3 # --password=${planted.pg} https://u:${planted.url}@h`,
        ];
        for (const command of runs)
          await runCli(home, ['call', 'terminal', JSON.stringify({ command, execution_target: 'bare' }), '--json']);
        const activity = JSON.stringify(await person.client.call('activity.list', {}));
        expect(activity).toContain('GH_PAT=');
        await served.stop();
        const audit = readFileSync(join(home, 'audit.jsonl'), 'utf8');
        expect(audit).toContain('rm -rf ./gone-');
        for (const secret of Object.values(planted)) {
          expect(activity, `activity.list: ${secret}`).not.toContain(secret);
          expect(audit, `audit.jsonl: ${secret}`).not.toContain(secret);
          for (const f of filesUnder(home)) expect(f.text, `${f.path}: ${secret}`).not.toContain(secret);
        }
      } finally {
        agent.close();
        person.close();
      }
    },
  );
});
