import { describe, expect, it } from 'vitest';
import { parseSshConfig } from './sshConfig.js';
import { destinationSpec, hostAliases, sshHosts } from './sshHosts.js';

const local = { home: '/home/me', user: 'me' };

describe('the hosts of ~/.ssh/config for the Add-target form', () => {
  const config = parseSshConfig(
    [
      'Host staging staging-alt',
      '  HostName 10.0.0.5',
      '  User deploy',
      '  Port 2222',
      '  IdentityFile ~/.ssh/staging_%h',
      'Host *.internal !bastion.internal',
      '  User ops',
      'Host bastion',
      '  ProxyJump jump.example.com',
      'Host staging',
      '  User ignored-second-block',
      'Match host db',
      '  User db',
      'Host *',
      '  ServerAliveInterval 30',
    ].join('\n'),
  );

  it('lists each alias once, in file order, without patterns', () => {
    expect(hostAliases(config)).toEqual(['staging', 'staging-alt', 'bastion']);
  });

  it('resolves each as a connection would, with a spec naming the alias as its host', () => {
    const [staging, , bastion] = sshHosts(config, local);
    expect(staging).toEqual({
      alias: 'staging',
      host: '10.0.0.5',
      user: 'deploy',
      port: 2222,
      spec: {
        backend: 'ssh',
        ssh_host: 'staging',
        ssh_user: 'deploy',
        ssh_port: 2222,
        ssh_key: '/home/me/.ssh/staging_10.0.0.5',
      },
    });
    expect(bastion).toEqual({ alias: 'bastion', host: 'bastion', spec: { backend: 'ssh', ssh_host: 'bastion' } });
  });

  it('an empty or missing config lists nothing', () => {
    expect(sshHosts(parseSshConfig(''), local)).toEqual([]);
  });

  it('a quick-connect destination becomes an SSH spec with only what was typed', () => {
    expect(destinationSpec({ host: 'h', port: 2200 })).toEqual({ backend: 'ssh', ssh_host: 'h', ssh_port: 2200 });
  });
});
