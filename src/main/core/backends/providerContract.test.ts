// The provider contract suite run for every built-in (local; SSH and Docker against the test sshd and dockerd) and
// for a small plugin through the real plugin host — once with the Core's exec-based files, once with its own.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'vitest';
import { loadDockerEnv, loadSshEnv } from '../../../../scripts/testEnv.js';
import { builtinProviders } from './builtins.js';
import { providerContract } from './providerContract.js';
import { Core } from '../core.js';
import { writeTestPlugin } from '../plugins/testPlugin.js';
import { configureSshPool, connectionPool } from './ssh/connectionPool.js';

const byName = (n: string) => builtinProviders.find((p) => p.backend === n)!;
const profile = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));

providerContract('local (sandbox: off)', () => {
  const home = profile('sb-contract-local-');
  return {
    provider: byName('local'),
    spec: { backend: 'local', sandbox: 'off' },
    ctx: { home, resolveSpec: () => undefined },
    scratch: home,
    close: () => rmSync(home, { recursive: true, force: true }),
  };
});

// Sandboxed (the default): the profile is masked inside, so the scratch folder is the target's workspace, apart from
// it.
providerContract('local (sandboxed)', () => {
  const home = profile('sb-contract-local-profile-');
  const scratch = profile('sb-contract-local-ws-');
  return {
    provider: byName('local'),
    spec: { backend: 'local', cwd: scratch },
    ctx: { home, resolveSpec: () => undefined },
    scratch,
    close: () => {
      rmSync(home, { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
});

const ssh = loadSshEnv();
if (ssh) {
  providerContract('ssh (test sshd)', () => {
    const home = profile('sb-contract-ssh-');
    configureSshPool({ releaseGraceMs: 0 });
    writeFileSync(join(home, 'known_hosts'), `${ssh.knownHostsLine}\n`);
    return {
      provider: byName('ssh'),
      spec: { backend: 'ssh', ssh_host: ssh.host, ssh_port: ssh.port, ssh_user: ssh.user, ssh_key: ssh.key },
      ctx: { home, resolveSpec: () => undefined },
      scratch: '/tmp',
      close: async () => {
        await connectionPool.closeAll();
        rmSync(home, { recursive: true, force: true });
      },
    };
  });
} else describe('provider contract: ssh', () => it.skip('no test sshd (scripts/test-env.sh up)', () => undefined));

const docker = loadDockerEnv();
if (docker) {
  providerContract('docker (test dockerd)', () => {
    const home = profile('sb-contract-docker-');
    return {
      provider: byName('docker'),
      spec: { backend: 'docker', docker_host: docker.socket, docker_image: docker.image, docker_network: 'none' },
      ctx: { home, resolveSpec: () => undefined },
      scratch: '/tmp',
      close: () => rmSync(home, { recursive: true, force: true }),
    };
  });
} else
  describe('provider contract: docker', () => it.skip('no test dockerd (scripts/test-env.sh up)', () => undefined));

/** A Core with one enabled test plugin; the suite talks to the plugin's provider as the Core would. */
function pluginSubject(files: boolean) {
  return async () => {
    const home = profile('sb-contract-plugin-');
    mkdirSync(join(home, 'plugins'), { recursive: true });
    writeTestPlugin(home, { name: 'contract_box', files, flags: { supports_streams: true } });
    writeFileSync(join(home, 'plugins', 'enabled.json'), JSON.stringify({ enabled: ['contract_box'] }));
    const core = await new Core({ home }).start();
    const provider = core.plugins.provider('contract_box');
    if (!provider) throw new Error(`the test plugin did not load: ${JSON.stringify(core.plugins.list())}`);
    return {
      provider,
      spec: { backend: 'contract_box' },
      ctx: core.providerContext,
      scratch: home,
      close: async () => {
        await core.close();
        rmSync(home, { recursive: true, force: true });
      },
    };
  };
}
providerContract('plugin through the plugin host (exec-based files)', pluginSubject(false));
providerContract('plugin through the plugin host (its own files)', pluginSubject(true));
