import { describe, expect, it } from 'vitest';
import type { TargetSpec } from '../../../../shared/targets.js';
import { SwitchboardError } from '../../../../shared/errors.js';
import { parseSshConfig } from './sshConfig.js';
import { defaultKeyFiles, resolveRoute, routeKey, type RouteDeps } from './sshRoute.js';

const local = { home: '/home/me', user: 'me' };
const targets: Record<string, TargetSpec> = {
  bastion: { backend: 'ssh', ssh_host: 'bastion.example.com', ssh_user: 'jump', ssh_key: '~/.ssh/bastion' },
  inner: { backend: 'ssh', ssh_host: 'inner', ssh_jump: 'bastion' },
  deep: { backend: 'ssh', ssh_host: 'deep.lan', ssh_jump: 'inner' },
  loopA: { backend: 'ssh', ssh_host: 'a', ssh_jump: 'loopB' },
  loopB: { backend: 'ssh', ssh_host: 'b', ssh_jump: 'loopA' },
  notssh: { backend: 'local' },
};
const deps: RouteDeps = {
  resolveSpec: (n) => targets[n],
  sshConfig: parseSshConfig(
    'Host inner\n  HostName 10.0.0.5\n  User ops\n  Port 2022\n  IdentityFile ~/.ssh/inner_key\n',
  ),
  local,
};
const ssh = (name: string) => targets[name] as Extract<TargetSpec, { backend: 'ssh' }>;

describe('resolveRoute', () => {
  it('a plain target: defaults for port, user and keys', () => {
    const hops = resolveRoute('t', { backend: 'ssh', ssh_host: 'h.example.com' }, deps);
    expect(hops).toEqual([
      {
        target: 't',
        host: 'h.example.com',
        port: 22,
        user: 'me',
        keyFiles: defaultKeyFiles('/home/me'),
        explicitKey: false,
        passwordEnv: undefined,
        agent: undefined,
      },
    ]);
  });

  it('spec fields win over ~/.ssh/config, which fills the rest', () => {
    const [hop] = resolveRoute(
      't',
      { backend: 'ssh', ssh_host: 'inner', ssh_user: 'me2', ssh_password_env: 'PW', ssh_agent: false },
      deps,
    );
    expect(hop).toMatchObject({
      host: '10.0.0.5',
      port: 2022,
      user: 'me2',
      keyFiles: ['/home/me/.ssh/inner_key'],
      explicitKey: false,
      passwordEnv: 'PW',
      agent: false,
    });
  });

  it('ssh_key is explicit and ~-expanded', () => {
    const [hop] = resolveRoute('bastion', ssh('bastion'), deps);
    expect(hop).toMatchObject({ keyFiles: ['/home/me/.ssh/bastion'], explicitKey: true, user: 'jump' });
  });

  it('a jump chain lists hops from the first jump to the target', () => {
    const hops = resolveRoute('deep', ssh('deep'), deps);
    expect(hops.map((h) => `${h.target}=${h.user}@${h.host}:${h.port}`)).toEqual([
      'bastion=jump@bastion.example.com:22',
      'inner=ops@10.0.0.5:2022',
      'deep=me@deep.lan:22',
    ]);
    expect(routeKey(hops)).toBe('jump@bastion.example.com:22 -> ops@10.0.0.5:2022 -> me@deep.lan:22');
  });

  it.each([
    ['loopA', /loops back/],
    ['missing', /not a target/],
    ['notssh', /not an SSH target/],
  ])('bad jump via %s', (jump, message) => {
    const spec = jump === 'loopA' ? ssh('loopA') : { backend: 'ssh' as const, ssh_host: 'x', ssh_jump: jump };
    const run = () => resolveRoute(jump === 'loopA' ? 'loopA' : 'x', spec, deps);
    expect(run).toThrow(SwitchboardError);
    expect(run).toThrow(message);
  });
});
