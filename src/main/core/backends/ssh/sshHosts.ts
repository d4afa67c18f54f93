// SSH targets the window makes for a person without the whole form: the hosts kept in ~/.ssh/config (each `Host`
// alias that names one host: no `*`, `?` or `!` pattern), resolved the way a connection to it would be
// (sshConfig.ts), and quick-connect destinations (`user@host:port`, read by shared/quickConnect.ts).
import { homedir, userInfo } from 'node:os';
import type { MethodInput, MethodOutput } from '../../../../shared/api.js';
import type { Handlers } from '../../platform/index.js';
import { loadSshConfig, resolveSshConfig, type SshConfigFile } from './sshConfig.js';

export type SshHost = MethodOutput<'targets.sshHosts'>[number];
type Destination = MethodInput<'targets.quickSpec'>;

/** More than a person keeps by hand; a generated config with thousands of hosts is cut here. */
const MAX_HOSTS = 500;

/** The aliases of the config's Host lines, in file order, each once; patterns are left out. */
export function hostAliases(config: SshConfigFile): string[] {
  const seen = new Set<string>();
  for (const line of config) {
    if (!('param' in line) || line.param.toLowerCase() !== 'host') continue;
    const values = typeof line.value === 'string' ? line.value.split(/\s+/) : line.value.map((v) => v.val);
    for (const alias of values) if (alias && !/[*?!]/.test(alias)) seen.add(alias);
  }
  return [...seen].slice(0, MAX_HOSTS);
}

/** The spec of an SSH target for a destination; absent parts are left to ~/.ssh/config and the defaults. */
export function destinationSpec(d: Destination): Record<string, unknown> {
  return {
    backend: 'ssh',
    ssh_host: d.host,
    ...(d.user ? { ssh_user: d.user } : {}),
    ...(d.port ? { ssh_port: d.port } : {}),
    ...(d.key ? { ssh_key: d.key } : {}),
  };
}

/**
 * Each alias with what a connection to it would use. The spec names the alias as its host, so a connection applies
 * the rest of its block (ProxyJump …) too; user, port and first key file are written out for the person to see.
 */
export function sshHosts(config: SshConfigFile, local: { home: string; user: string }): SshHost[] {
  return hostAliases(config).map((alias) => {
    const e = resolveSshConfig(config, alias, local);
    return {
      alias,
      host: e.hostName ?? alias,
      ...(e.user ? { user: e.user } : {}),
      ...(e.port ? { port: e.port } : {}),
      spec: destinationSpec({
        host: alias,
        ...(e.user ? { user: e.user } : {}),
        ...(e.port ? { port: e.port } : {}),
        ...(e.identityFiles[0] ? { key: e.identityFiles[0] } : {}),
      }),
    };
  });
}

export function sshHostMethods() {
  return {
    'targets.sshHosts': async () => {
      const home = homedir();
      return sshHosts(await loadSshConfig(home), { home, user: userInfo().username });
    },
    'targets.quickSpec': async (destination) => destinationSpec(destination),
  } satisfies Partial<Handlers>;
}
