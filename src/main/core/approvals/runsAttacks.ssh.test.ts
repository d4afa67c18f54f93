// The attacks of issue 24 through the real tool path on an SSH target of the loopback sshd; skipped without it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSshEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/providers.js';
import { makeTestCore } from '../tools/testCore.js';
import { ASK_NOBODY, describeRunAttacksOn } from './testRunAttacks.js';

const env = loadSshEnv();

describeRunAttacksOn('ssh', async () => {
  if (!env) return undefined;
  // No real ~/.ssh or agent: only the fixture's key and host line count.
  process.env.HOME = mkdtempSync(join(tmpdir(), 'sb-runs-ssh-home-'));
  delete process.env.SSH_AUTH_SOCK;
  const base = `backend: ssh, ssh_host: ${env.host}, ssh_port: ${env.port}, ssh_user: ${env.user}, ssh_key: ${env.key}`;
  const t = await makeTestCore(['s'], {
    // Unsandboxed: what the approval step reads on the host is the point (a sandboxed target: sshSandbox.test.ts).
    specs: { s: `{ ${base}, cwd: /tmp, sandbox: off }` },
    providers: builtinProviders,
    files: { known_hosts: env.knownHostsLine + '\n' },
    extra: ASK_NOBODY,
  });
  const probe = await t.core.callTool(
    'terminal',
    { command: 'for p in git python3; do command -v $p >/dev/null && echo $p; done', execution_target: 's' },
    'test',
  );
  const out = String(probe.output);
  // rm -rf usr is not tried over SSH: the fixture's user could not delete /usr, but would spend a while trying.
  return {
    core: t.core,
    target: 's',
    has: { git: out.includes('git'), python: out.includes('python3'), rootLink: false },
    close: () => t.close(),
  };
});
