// The shared tool suite on two SSH targets of the loopback sshd (scripts/env/ssh.sh); skipped without it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSshEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from '../backends/providers.js';
import { makeTestCore } from './testCore.js';
import { describeToolsOn } from './toolsSuite.js';

const env = loadSshEnv();
const ssh = builtinProviders.find((p) => p.backend === 'ssh');

describeToolsOn('ssh', async () => {
  if (!env || !ssh) return undefined;
  // No real ~/.ssh or agent: only the fixture's key and host line count.
  process.env.HOME = mkdtempSync(join(tmpdir(), 'sb-tools-ssh-home-'));
  delete process.env.SSH_AUTH_SOCK;
  const base = `backend: ssh, ssh_host: ${env.host}, ssh_port: ${env.port}, ssh_user: ${env.user}, ssh_key: ${env.key}`;
  const t = await makeTestCore(['sa', 'sb'], {
    // Two targets on one host with different cwds: the suite's relative paths must land apart.
    specs: { sa: `{ ${base}, cwd: /tmp }`, sb: `{ ${base}, cwd: "~" }` },
    providers: builtinProviders,
    files: { known_hosts: env.knownHostsLine + '\n' },
  });
  const probe = await t.core.callTool(
    'terminal',
    { command: 'command -v python3 >/dev/null && echo yes || echo no', execution_target: 'sa' },
    'test',
  );
  return {
    call: (tool, args) => t.core.callTool(tool, args, 'test'),
    targets: ['sa', 'sb'],
    python: probe.output === 'yes\n',
    close: () => t.close(),
  };
});
