import { describe, expect, it } from 'vitest';
import type { ContainerInspectInfo } from 'dockerode';
import {
  attachedLine,
  attachedSandbox,
  escapes,
  managedSandbox,
  settingsOf,
  type ContainerSettings,
} from './containerConfinement.js';

const guarded = { profile: '/home/me/.switchboard', home: '/home/me', sockets: ['/srv/engine/docker.sock'] };

/** A container as `docker run -d busybox` leaves it: the engine's defaults. */
const plain: ContainerSettings = {
  privileged: false,
  capAdd: [],
  capDrop: [],
  securityOpt: [],
  networkMode: 'bridge',
  pidMode: '',
  ipcMode: 'private',
  usernsMode: '',
  user: '',
  mounts: [],
};
const bind = (source: string, destination: string) => ({ type: 'bind', source, destination });

describe('escapes: the settings that let an attached container out to its host', () => {
  const table: Array<[string, Partial<ContainerSettings>, string[]]> = [
    ['the engine defaults hold it in', {}, []],
    ['--privileged', { privileged: true }, ['it is privileged (--privileged)']],
    ['privileged says it once, not per capability', { privileged: true, capAdd: ['SYS_ADMIN'] }, ['privileged']],
    ['--cap-add SYS_ADMIN', { capAdd: ['SYS_ADMIN'] }, ['it has SYS_ADMIN (--cap-add SYS_ADMIN)']],
    ['--cap-add ALL', { capAdd: ['ALL'] }, ['it has every capability (--cap-add ALL)']],
    ['a harmless added capability', { capAdd: ['NET_ADMIN', 'SYS_PTRACE'] }, []],
    ['--network host', { networkMode: 'host' }, ["it shares the host's network (--network host)"]],
    ['--pid host', { pidMode: 'host' }, ["it shares the host's processes (--pid host)"]],
    ['--ipc host is weaker, not a way out', { ipcMode: 'host' }, []],
    [
      "the engine's socket bound in",
      { mounts: [bind('/var/run/docker.sock', '/var/run/docker.sock')] },
      ["a container engine's socket is inside (/var/run/docker.sock at /var/run/docker.sock)"],
    ],
    [
      'a file named like the socket, bound where it would be',
      { mounts: [bind('/tmp/x/fake', '/var/run/docker.sock')] },
      ["a container engine's socket is inside (/tmp/x/fake at /var/run/docker.sock)"],
    ],
    [
      'a folder holding the socket',
      { mounts: [bind('/var/run', '/host-run')] },
      ["a container engine's socket is inside (/var/run at /host-run)"],
    ],
    [
      "the target's own engine socket, wherever it is",
      { mounts: [bind('/srv/engine', '/e')] },
      ["a container engine's socket is inside (/srv/engine at /e)"],
    ],
    [
      "podman's socket by its name",
      { mounts: [bind('/tmp/p', '/sock/podman.sock')] },
      ["a container engine's socket is inside (/tmp/p at /sock/podman.sock)"],
    ],
    ["the host's /", { mounts: [bind('/', '/host')] }, ["the host's / is mounted at /host"]],
    [
      'the person home, which holds the profile',
      { mounts: [bind('/home/me', '/me')] },
      ['the Switchboard profile (/home/me/.switchboard) is inside (/home/me at /me)'],
    ],
    ['a project folder is fine', { mounts: [bind('/home/me/src/app', '/w')] }, []],
    [
      'a named volume is the engine own, whatever its path there',
      { mounts: [{ type: 'volume', source: '/var/lib/docker/volumes/run/_data', destination: '/data' }] },
      [],
    ],
    [
      'each way out is said',
      { privileged: true, networkMode: 'host', mounts: [bind('/', '/host')] },
      ['it is privileged', "the host's / is mounted at /host", "it shares the host's network"],
    ],
  ];
  for (const [name, settings, found] of table)
    it(name, () => {
      const got = escapes({ ...plain, ...settings }, guarded).map((e) => e.what);
      expect(got).toHaveLength(found.length);
      found.forEach((f, i) => expect(got[i]).toContain(f));
    });

  it('each comes with what to change', () => {
    const all = escapes({ ...plain, privileged: true, pidMode: 'host', mounts: [bind('/', '/h')] }, guarded);
    expect(all.map((e) => e.fix)).toEqual([
      'recreate it without --privileged',
      'mount only the folders it needs, not /',
      'recreate it without --pid host',
    ]);
  });
});

describe('attachedLine: what holds it in, in one line', () => {
  const table: Array<[string, Partial<ContainerSettings>, string]> = [
    [
      'the engine defaults',
      {},
      "a container you attached: runs as root, the engine's default capabilities, network bridge, no host paths",
    ],
    [
      'locked down',
      {
        user: '1000:1000',
        capDrop: ['ALL'],
        capAdd: ['CHOWN'],
        securityOpt: ['no-new-privileges=true'],
        networkMode: 'none',
      },
      'a container you attached: runs as 1000:1000, no capabilities but CHOWN, no new privileges, network none, ' +
        'no host paths',
    ],
    [
      'loosened',
      {
        user: 'root',
        capAdd: ['NET_ADMIN'],
        capDrop: ['MKNOD'],
        securityOpt: ['seccomp=unconfined', 'apparmor=unconfined'],
        networkMode: 'default',
        ipcMode: 'host',
        usernsMode: 'host',
        mounts: [bind('/a', '/a'), bind('/b', '/b'), bind('/c', '/c'), bind('/d', '/d')],
      },
      "a container you attached: runs as root, the engine's default capabilities and NET_ADMIN less MKNOD, " +
        "no seccomp filter, no AppArmor profile, the engine's default network, the host's IPC, " +
        "the host's user namespace, host paths /a, /b, /c and 1 more",
    ],
    [
      'privileged, on the host network and processes',
      { privileged: true, networkMode: 'host', pidMode: 'host' },
      "a container you attached: runs as root, privileged, the host's network, the host's processes, no host paths",
    ],
  ];
  for (const [name, settings, line] of table)
    it(name, () => expect(attachedLine({ ...plain, ...settings })).toBe(line));
});

describe('settingsOf: read from an inspect as Docker and Podman write it', () => {
  it('normalises capability names and security options', () => {
    const info = {
      Config: { User: 'app' },
      HostConfig: {
        Privileged: false,
        CapAdd: ['CAP_SYS_ADMIN', 'net_admin'],
        CapDrop: null,
        SecurityOpt: ['no-new-privileges:true', 'seccomp:unconfined'],
        NetworkMode: 'host',
        PidMode: '',
      },
      Mounts: [{ Type: 'bind', Source: '/', Destination: '/host', Mode: '', RW: true, Propagation: '' }],
    } as unknown as ContainerInspectInfo;
    expect(settingsOf(info)).toEqual({
      privileged: false,
      capAdd: ['SYS_ADMIN', 'NET_ADMIN'],
      capDrop: [],
      securityOpt: ['no-new-privileges=true', 'seccomp=unconfined'],
      networkMode: 'host',
      pidMode: '',
      ipcMode: '',
      usernsMode: '',
      user: 'app',
      mounts: [{ type: 'bind', source: '/', destination: '/host' }],
    });
  });
});

describe('attachedSandbox and managedSandbox', () => {
  it('an attached container held in by its settings is sandboxed, in a container, with its line', () => {
    expect(attachedSandbox({ ...plain, networkMode: 'none' }, guarded)).toEqual({
      state: 'sandboxed',
      kind: 'container',
      network: false,
      confinement:
        "a container you attached: runs as root, the engine's default capabilities, network none, " + 'no host paths',
    });
  });

  it('one that lets its commands out is unsandboxed, with every reason and what to change', () => {
    const s = attachedSandbox({ ...plain, privileged: true, networkMode: 'host' }, guarded);
    expect(s).toMatchObject({
      state: 'unsandboxed',
      kind: 'container',
      network: true,
      reason: "it is privileged (--privileged); it shares the host's network (--network host)",
      hint:
        'recreate it without --privileged; recreate it with a network of its own (--network none, or a bridge); ' +
        'or let Switchboard make one (docker_image)',
    });
    expect(s.confinement).toContain('privileged');
  });

  const managed: Array<[string, Parameters<typeof managedSandbox>[0], Record<string, unknown>]> = [
    [
      'the defaults',
      {},
      {
        state: 'sandboxed',
        kind: 'container',
        network: true,
        confinement:
          'a container Switchboard made: no capabilities but CHOWN, DAC_OVERRIDE, FOWNER, SETUID, SETGID, ' +
          "no new privileges, no host folders, the engine's default network",
      },
    ],
    [
      'no network, a host folder and a volume',
      { docker_network: 'none', docker_volumes: ['/home/me/src:/w', 'cache:/cache:ro'] },
      {
        state: 'sandboxed',
        network: false,
        confinement: expect.stringContaining(
          'no new privileges, host folders /home/me/src (docker_volumes), volumes cache, network none',
        ),
      },
    ],
    [
      "the host's network lets it out",
      { docker_network: 'host' },
      {
        state: 'unsandboxed',
        reason: "it shares the host's network (docker_network: host)",
        hint: 'set docker_network to none, or to a network of its own',
      },
    ],
  ];
  for (const [name, spec, info] of managed)
    it(`managed: ${name}`, () => expect(managedSandbox(spec)).toMatchObject(info));
});
