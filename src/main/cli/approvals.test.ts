// Command approvals end to end: a real `switchboard serve`, agent calls through `switchboard call`, decisions with
// `switchboard approvals …` — from a terminal (a pty the test gives with `script`) and from inside a tool call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { PendingApproval } from '../../shared/approvals.js';
import { loadDockerEnv, repoRoot } from '../../../scripts/testEnv.js';
import {
  cliPath,
  ensureBuilt,
  runCli,
  runCliAtTerminal,
  startServe,
  tempHome,
  type CliResult,
  type Served,
} from '../../../scripts/cliHarness.js';
import { shellQuote } from '../core/platform/index.js';
import { connectCore } from '../transport/wsLink.js';

const atTerminal = runCliAtTerminal;

/** Start an agent's tool call; it waits while its approval is pending. */
function agentCall(home: string, args: Record<string, unknown>): { done: Promise<CliResult>; kill: () => void } {
  const child = spawn(process.execPath, [cliPath, 'call', 'terminal', JSON.stringify(args), '--json'], {
    env: { ...process.env, SWITCHBOARD_HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  return {
    done: new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr }))),
    kill: () => child.kill('SIGKILL'),
  };
}

async function pendingList(home: string): Promise<PendingApproval[]> {
  const r = await runCli(home, ['approvals', 'list', '--json']);
  return (JSON.parse(r.stdout) as { approvals: PendingApproval[] }).approvals;
}

/** The pending approval for this command, once the Core holds it. */
async function pendingFor(home: string, command: string): Promise<PendingApproval> {
  for (;;) {
    const found = (await pendingList(home)).find((a) => a.command === command);
    if (found) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
}

function auditLines(home: string): Array<Record<string, unknown>> {
  const path = join(home, 'audit.jsonl');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function auditApprovals(home: string): Array<Record<string, unknown>> {
  return auditLines(home).filter((r) => r.kind === 'approval');
}

// Each test runs several CLI processes one after another; on a loaded 2-core machine that can outlast the default.
describe('approvals through serve and the CLI (local target)', { timeout: 300_000 }, () => {
  const home = tempHome('sb-appr-');
  // The workspaces sit beside the profile, never in it: an agent may change nothing in the profile.
  const work = tempHome('sb-appr-work-');
  const dirA = join(work, 'a');
  const dirB = join(work, 'b');
  let served: Served;

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(dirA);
    mkdirSync(dirB);
    // b runs unsandboxed: inside the sandbox an agent cannot read core.json at all (core/sandbox's tests), so the
    // Core's own refusal of an agent that tries to approve is tested where the agent can reach it.
    writeFileSync(
      join(home, 'config.yaml'),
      `terminal:\n  targets:\n    a: { backend: local, cwd: ${dirA} }\n    b: { backend: local, ` +
        `cwd: ${dirB}, sandbox: off }\napprovals:\n  mode: ask\n  timeout: 600\n`,
    );
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('holds a dangerous call until a person approves it at a terminal; then it runs', async () => {
    writeFileSync(join(dirA, 'x'), '');
    const call = agentCall(home, { command: 'rm -rf ./x', execution_target: 'a' });
    const p = await pendingFor(home, 'rm -rf ./x');
    expect(p).toMatchObject({
      kind: 'command',
      tool: 'terminal',
      execution_target: 'a',
      backend: 'local',
      cwd: dirA,
      client: 'cli',
    });
    expect(existsSync(join(dirA, 'x'))).toBe(true);
    const listed = await runCli(home, ['approvals', 'list']);
    expect(listed.stdout).toContain(`terminal: rm -rf ./x`);

    const ok = await atTerminal(home, ['approvals', 'approve', p.id]);
    expect(ok.stdout).toContain(`approved ${p.id} (once)`);
    expect(ok.status).toBe(0);
    const r = await call.done;
    expect(r.status).toBe(0);
    expect(existsSync(join(dirA, 'x'))).toBe(false);
    expect(auditApprovals(home).at(-1)).toMatchObject({
      outcome: 'approve',
      by: 'cli',
      person: 'terminal',
      scope: 'once',
      execution_target: 'a',
      client: 'cli',
    });
  });

  it("a decision from the person's page: known by the link, whatever the page claims", async () => {
    writeFileSync(join(dirA, 'y'), '');
    const call = agentCall(home, { command: 'rm -rf ./y', execution_target: 'a' });
    const p = await pendingFor(home, 'rm -rf ./y');
    // The page's socket, with the cookie its link's code bought; it claims to be the window and a terminal.
    const page = await connectCore(`${served.url.replace('http', 'ws')}ws`, served.token, 5000, served.approver);
    try {
      const claims = { person: 'window', decider: 'cli', by: 'terminal' };
      await page.client.call('approvals.decide', { id: p.id, decision: 'approve', ...claims } as never);
    } finally {
      page.close();
    }
    expect((await call.done).status).toBe(0);
    const line = auditApprovals(home).at(-1)!;
    expect(line).toMatchObject({ outcome: 'approve', by: 'ui', person: 'link', execution_target: 'a' });
  });

  it(
    'refuses to approve from a process without a terminal, ' + 'in one line; deny works and carries the reason',
    async () => {
      const call = agentCall(home, { command: 'sudo true', execution_target: 'a' });
      const p = await pendingFor(home, 'sudo true');
      const refused = await runCli(home, ['approvals', 'approve', p.id]);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/^switchboard: approving needs a person at a terminal/);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect((await pendingList(home)).map((a) => a.id)).toContain(p.id);

      const denied = await atTerminal(home, ['approvals', 'deny', p.id, '--reason', 'use the staging box']);
      expect(denied.status).toBe(0);
      const r = await call.done;
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^switchboard: denied by a person: use the staging box/);
    },
  );

  it(
    'an agent cannot approve its own request: not through the CLI, not through a pty it makes, ' +
      'not over the socket',
    async () => {
      const call = agentCall(home, { command: 'sudo id', execution_target: 'a' });
      const p = await pendingFor(home, 'sudo id');
      const cli = [process.execPath, cliPath, 'approvals', 'approve', p.id].map(shellQuote).join(' ');
      const env = `SWITCHBOARD_HOME=${shellQuote(home)}`;
      const run = async (command: string): Promise<string> => {
        const attempt = agentCall(home, { command, execution_target: 'b' });
        let settled = false;
        void attempt.done.then(() => (settled = true));
        // The attempt may itself be asked (it runs a CLI file too large to read through): a person lets it run, and
        // the Core still refuses what it tries.
        while (!settled) {
          const asked = (await pendingList(home)).find((a) => a.execution_target === 'b');
          if (asked) {
            await atTerminal(home, ['approvals', 'approve', asked.id]);
            break;
          }
          await new Promise((r) => setTimeout(r, 100));
        }
        const r = await attempt.done;
        // Refused by the policy before it ran (it reads core.json): the attack ends earlier still.
        return r.stdout ? String((JSON.parse(r.stdout) as { output: string }).output) : r.stderr;
      };
      // Plainly: the CLI sees it has no terminal.
      expect(await run(`${env} ${cli}`)).toMatch(/approving needs a person at a terminal/);
      // With a pty of its own (script): the CLI passes its own check; the Core sees whose child it is.
      expect(await run(`${env} script -qec ${shellQuote(cli)} /dev/null`)).toMatch(
        /only a person may use approvals.decide: (it runs inside a tool call|it was started by an agent's tool call)/,
      );
      // Detached into a session of its own, still on a pty.
      expect(await run(`${env} setsid script -qec ${shellQuote(cli)} /dev/null`)).toMatch(
        /only a person may use approvals.decide: (it runs inside a tool call|it was started by an agent's tool call)/,
      );
      // Straight over the WebSocket with the token from core.json, on a pty too.
      const ws = JSON.stringify(join(repoRoot, 'node_modules', 'ws'));
      const js =
        `const W=require(${ws});const ` +
        `c=JSON.parse(require('fs').readFileSync(process.env.SWITCHBOARD_HOME+'/core.json','utf8'));` +
        `const s=new W(c.ws_url,{headers:{authorization:'Bearer '+c.token}});` +
        `s.on('open',()=>s.send(JSON.stringify({type:'call',id:1,method:'approvals.decide',` +
        `params:{id:'${p.id}',decision:'approve'}})));` +
        `s.on('message',(m)=>{console.log(String(m));process.exit(0)});`;
      expect(
        await run(`${env} script -qec ${shellQuote(`${shellQuote(process.execPath)} -e ${shellQuote(js)}`)} /dev/null`),
      ).toMatch(
        new RegExp(
          '"code":"not_permitted".*only a person may use approvals.decide|' +
            String.raw`refused: reads .*core\.json, which holds the Switchboard agent token`,
        ),
      );
      expect((await pendingList(home)).map((a) => a.id)).toContain(p.id);

      await atTerminal(home, ['approvals', 'deny', p.id]);
      expect((await call.done).status).toBe(2);
    },
  );

  it('session scope: not asked again on that target, asked on another', async () => {
    const first = agentCall(home, { command: 'sudo -n true || true', execution_target: 'a' });
    const p = await pendingFor(home, 'sudo -n true || true');
    expect((await atTerminal(home, ['approvals', 'approve', p.id, '--scope', 'session'])).status).toBe(0);
    expect((await first.done).status).toBe(0);
    expect(
      (
        await runCli(home, [
          'call',
          'terminal',
          JSON.stringify({ command: 'sudo -n true || true', execution_target: 'a' }),
        ])
      ).status,
    ).toBe(0);
    const other = agentCall(home, { command: 'sudo -n true || true', execution_target: 'b' });
    const q = await pendingFor(home, 'sudo -n true || true');
    expect(q.execution_target).toBe('b');
    await atTerminal(home, ['approvals', 'deny', q.id]);
    expect((await other.done).status).toBe(2);
  });

  it('always rules are listed and revocable; unknown ids are one clear line', async () => {
    const call = agentCall(home, { command: 'git push --force origin HEAD || true', execution_target: 'a' });
    const p = await pendingFor(home, 'git push --force origin HEAD || true');
    expect((await atTerminal(home, ['approvals', 'approve', p.id, '--scope', 'always'])).status).toBe(0);
    await call.done;
    const rules = JSON.parse((await atTerminal(home, ['approvals', 'rules', '--json'])).stdout) as {
      rules: Array<{ id: string; pattern: string; execution_target: string; stale?: boolean }>;
    };
    // A git command's rule holds for the git config and hooks the approval read (their digest follows the pattern).
    expect(rules.rules).toEqual([
      expect.objectContaining({
        execution_target: 'a',
        tool: 'terminal',
        pattern: expect.stringMatching(/^git push --force origin HEAD \|\| true( #content:[0-9a-f]+)?$/),
        created_by: 'cli',
      }),
    ]);
    expect(rules.rules[0]).toMatchObject({ stale: false, spec_fingerprint: expect.stringMatching(/^sha256:/) });
    expect((await atTerminal(home, ['approvals', 'rules'])).stdout).toMatch(/git push --force origin HEAD .* active\n/);
    // A rule kept before rules had a spec fingerprint matches nothing and is shown stale.
    const file = join(home, 'approvals.json');
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { version: 1; rules: Array<Record<string, unknown>> };
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        rules: [
          ...kept.rules,
          {
            id: 'old1',
            execution_target: 'a',
            tool: 'terminal',
            pattern: 'sudo -n true || true',
            created_at: '2026-01-01T00:00:00.000Z',
            created_by: 'ui',
          },
        ],
      }),
    );
    const listed = (await atTerminal(home, ['approvals', 'rules'])).stdout;
    expect(listed).toMatch(/old1 .* stale\n/);
    expect(listed).toContain('stale: made for a spec its target no longer has');
    expect((await atTerminal(home, ['approvals', 'revoke', 'old1'])).status).toBe(0);
    expect((await atTerminal(home, ['approvals', 'revoke', rules.rules[0]!.id])).stdout).toBe(
      `revoked ${rules.rules[0]!.id}\n`,
    );
    // Each revoke is a person's action in the audit log, saying how the person was known.
    expect(auditLines(home).filter((l) => l.tool === 'approvals.revoke')).toEqual([
      expect.objectContaining({
        kind: 'action',
        client: 'cli',
        person: 'terminal',
        outcome: 'ok',
        args: 'revoke old1: terminal sudo -n true || true',
      }),
      expect.objectContaining({ kind: 'action', person: 'terminal', outcome: 'ok', execution_target: 'a' }),
    ]);
    expect(JSON.parse((await atTerminal(home, ['approvals', 'rules', '--json'])).stdout).rules).toEqual([]);

    for (const args of [
      ['approvals', 'revoke', 'nope'],
      ['approvals', 'deny', 'nope'],
    ]) {
      const r = await atTerminal(home, args);
      expect(r.status).toBe(2);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
    }
    expect((await atTerminal(home, ['approvals', 'revoke', 'nope'])).stdout).toMatch(/no approval rule nope/);
    // Rules and their removal are a person's: without a terminal, one line saying so.
    const agent = await runCli(home, ['approvals', 'revoke', 'nope']);
    expect(agent.stderr).toMatch(
      /^switchboard: only a person may use approvals.revoke: the asking process has no controlling terminal/,
    );
    expect((await atTerminal(home, ['approvals', 'approve', 'nope'])).stdout).toMatch(
      /^switchboard: no pending approval nope/,
    );
  });

  it('a caller that goes away withdraws its request', async () => {
    const call = agentCall(home, { command: 'sudo whoami', execution_target: 'a' });
    const p = await pendingFor(home, 'sudo whoami');
    call.kill();
    await call.done;
    while ((await pendingList(home)).some((a) => a.id === p.id)) await new Promise((r) => setTimeout(r, 100));
    const line = auditApprovals(home).find((l) => l.args === 'sudo whoami');
    expect(line).toMatchObject({ outcome: 'deny', by: 'withdrawn' });
  });

  it('an MCP agent is asked about the same way, and gets the reason of a deny as its tool error', async () => {
    const client = new Client({ name: 'test-approvals', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${served.url}mcp`), {
        requestInit: { headers: { authorization: `Bearer ${served.token}` } },
      }),
    );
    try {
      type CallResult = { isError?: boolean; content: Array<{ type: string; text?: string }> };
      const denied = client.callTool(
        { name: 'terminal', arguments: { command: 'sudo uptime', execution_target: 'a' } },
        undefined,
        { timeout: 600_000 },
      ) as Promise<CallResult>;
      const p = await pendingFor(home, 'sudo uptime');
      expect(p.client).toBe('mcp');
      await atTerminal(home, ['approvals', 'deny', p.id, '--reason', 'not today']);
      const r = await denied;
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toMatch(/denied by a person: not today/);

      writeFileSync(join(dirA, 'm'), '');
      const approved = client.callTool(
        { name: 'terminal', arguments: { command: 'rm -rf ./m', execution_target: 'a' } },
        undefined,
        { timeout: 600_000 },
      ) as Promise<CallResult>;
      const q = await pendingFor(home, 'rm -rf ./m');
      expect((await atTerminal(home, ['approvals', 'approve', q.id])).status).toBe(0);
      expect((await approved).isError).toBeFalsy();
      expect(existsSync(join(dirA, 'm'))).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('hardline is refused without asking', async () => {
    const r = await runCli(home, ['call', 'terminal', JSON.stringify({ command: 'rm -rf ~', execution_target: 'a' })]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^switchboard: refused: recursive delete of/);
  });
});

const docker = loadDockerEnv();
describe.skipIf(!docker)('approvals on docker targets follow the flags', { timeout: 300_000 }, () => {
  const home = tempHome('sb-appr-d-');
  // A host folder beside the profile (a container may never mount the profile itself).
  const mnt = tempHome('sb-appr-d-mnt-');
  let served: Served;
  beforeAll(async () => {
    ensureBuilt();
    const base =
      `backend: docker, docker_image: "${docker!.image}", docker_host: "unix://${docker!.socket}", ` +
      `docker_network: none, cwd: /tmp`;
    writeFileSync(
      join(home, 'config.yaml'),
      [
        'terminal:',
        '  targets:',
        `    sandbox: { ${base} }`,
        `    mounted: { ${base}, docker_volumes: ["${mnt}:/mnt"] }`,
        'approvals:',
        '  mode: ask',
        '  timeout: 600',
        '',
      ].join('\n'),
    );
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(mnt, { recursive: true, force: true });
  });

  it('a managed container skips the asking; hardline is still refused', async () => {
    const r = await runCli(home, [
      'call',
      'terminal',
      JSON.stringify({ command: 'mkdir -p d && rm -rf d && echo gone', execution_target: 'sandbox' }),
      '--json',
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({ output: 'gone\n' });
    expect(auditApprovals(home).at(-1)).toMatchObject({ outcome: 'approve', by: 'flags', execution_target: 'sandbox' });
    const hard = await runCli(home, [
      'call',
      'terminal',
      JSON.stringify({ command: 'rm -rf /', execution_target: 'sandbox' }),
    ]);
    expect(hard.stderr).toMatch(/^switchboard: refused: /);
  });

  it('a container that mounts host paths asks', async () => {
    const call = agentCall(home, { command: 'rm -rf /mnt/d', execution_target: 'mounted' });
    const p = await pendingFor(home, 'rm -rf /mnt/d');
    expect(p).toMatchObject({ execution_target: 'mounted', backend: 'docker' });
    await atTerminal(home, ['approvals', 'deny', p.id]);
    expect((await call.done).status).toBe(2);
  });
});
