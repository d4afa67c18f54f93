// What holds agent work in a container, in one line: a managed one's (what Switchboard makes from its spec) or an
// attached one's (its own settings, from an inspect), and the settings that let its commands out to the host.
import type { ContainerInspectInfo } from 'dockerode';
import type { SandboxInfo } from '../../../../shared/targets.js';
import type { DockerSpec } from './fields.js';
import { ENGINE_SOCKETS, guardedInside, keptCapabilities, type Guarded } from './containerConfig.js';
import { mountsHostPath } from './dockerFlags.js';

/** What of a container's settings bears on what holds its commands in (HostConfig, Config.User, Mounts). */
export interface ContainerSettings {
  privileged: boolean;
  /** Capability names without `CAP_`, upper case. */
  capAdd: readonly string[];
  capDrop: readonly string[];
  /** `name` or `name=value` (Docker writes `:` or `=`; kept as `=`). */
  securityOpt: readonly string[];
  networkMode: string;
  pidMode: string;
  ipcMode: string;
  usernsMode: string;
  /** `''` is the image's user (root unless the image says otherwise). */
  user: string;
  mounts: readonly { type: string; source: string; destination: string }[];
}

/** One setting that lets the commands out to the host, and what to change. */
export interface Escape {
  what: string;
  fix: string;
}

const capName = (c: unknown): string => String(c).toUpperCase().replace(/^CAP_/, '');

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export function settingsOf(info: ContainerInspectInfo): ContainerSettings {
  const h = info.HostConfig;
  return {
    privileged: h.Privileged === true,
    capAdd: strings(h.CapAdd).map(capName),
    capDrop: strings(h.CapDrop).map(capName),
    securityOpt: strings(h.SecurityOpt).map((o) => o.replace(/^([a-z-]+):/, '$1=')),
    networkMode: h.NetworkMode ?? '',
    pidMode: h.PidMode ?? '',
    ipcMode: h.IpcMode ?? '',
    usernsMode: h.UsernsMode ?? '',
    user: info.Config.User ?? '',
    mounts: (info.Mounts ?? []).map((m) => ({ type: m.Type, source: m.Source, destination: m.Destination })),
  };
}

/**
 * Capabilities that are known ways out of a container to its host (beyond `--privileged`): mounting and most of the
 * kernel's administration, loading kernel modules, opening any host file by handle ("shocker").
 */
const ESCAPING_CAPS = ['ALL', 'SYS_ADMIN', 'SYS_MODULE', 'DAC_READ_SEARCH'];

const SOCKET_NAMES = /^(docker|podman|containerd)\.sock$/;

/** A path inside the container that is (or holds) an engine's socket, by where engines put it or by its name. */
function socketPathInside(destination: string): boolean {
  const under = (p: string): boolean => destination === p || destination.startsWith(`${p}/`);
  return ENGINE_SOCKETS.some(under) || SOCKET_NAMES.test(destination.split('/').pop() ?? '');
}

const isRoot = (user: string): boolean => ['', '0', 'root'].includes(user.split(':')[0] ?? '');
const hasOpt = (s: ContainerSettings, opt: string): boolean =>
  s.securityOpt.some((o) => o === opt || o === `${opt}=true`);

/** The settings of an attached container that let its commands act on the host, each with what to change. */
export function escapes(s: ContainerSettings, guarded: Guarded): Escape[] {
  const out: Escape[] = [];
  if (s.privileged) out.push({ what: 'it is privileged (--privileged)', fix: 'recreate it without --privileged' });
  else
    for (const cap of s.capAdd.filter((c) => ESCAPING_CAPS.includes(c)))
      out.push({
        what: cap === 'ALL' ? 'it has every capability (--cap-add ALL)' : `it has ${cap} (--cap-add ${cap})`,
        fix: `recreate it without --cap-add ${cap}`,
      });
  for (const m of s.mounts) {
    const bind = m.type === 'bind';
    const inside = bind ? guardedInside(m.source, guarded) : undefined;
    if (bind && m.source === '/')
      out.push({ what: `the host's / is mounted at ${m.destination}`, fix: 'mount only the folders it needs, not /' });
    else if (inside?.what === 'profile')
      out.push({
        what: `the Switchboard profile (${inside.path}) is inside (${m.source} at ${m.destination})`,
        fix: `mount a folder that does not hold ${inside.path}`,
      });
    else if (inside || socketPathInside(m.destination))
      out.push({
        what: `a container engine's socket is inside (${m.source} at ${m.destination})`,
        fix: `remove the mount at ${m.destination}`,
      });
  }
  if (s.networkMode === 'host')
    out.push({
      what: "it shares the host's network (--network host)",
      fix: 'recreate it with a network of its own (--network none, or a bridge)',
    });
  if (s.pidMode === 'host')
    out.push({ what: "it shares the host's processes (--pid host)", fix: 'recreate it without --pid host' });
  return out;
}

const MOUNTS_SHOWN = 3;

function listed(items: readonly string[]): string {
  const more = items.length - MOUNTS_SHOWN;
  return items.slice(0, MOUNTS_SHOWN).join(', ') + (more > 0 ? ` and ${more} more` : '');
}

function networkWords(mode: string): string {
  if (mode === 'host') return "the host's network";
  if (mode === '' || mode === 'default') return "the engine's default network";
  return `network ${mode}`;
}

/** What holds an attached container's commands in, as its settings say: one line, the window's and doctor's. */
export function attachedLine(s: ContainerSettings): string {
  const parts = [isRoot(s.user) ? 'runs as root' : `runs as ${s.user}`];
  if (s.privileged) parts.push('privileged');
  else if (s.capDrop.includes('ALL'))
    parts.push(s.capAdd.length ? `no capabilities but ${s.capAdd.join(', ')}` : 'no capabilities');
  else
    parts.push(
      "the engine's default capabilities" +
        (s.capAdd.length ? ` and ${s.capAdd.join(', ')}` : '') +
        (s.capDrop.length ? ` less ${s.capDrop.join(', ')}` : ''),
    );
  if (hasOpt(s, 'no-new-privileges')) parts.push('no new privileges');
  if (hasOpt(s, 'seccomp=unconfined')) parts.push('no seccomp filter');
  if (hasOpt(s, 'apparmor=unconfined')) parts.push('no AppArmor profile');
  parts.push(networkWords(s.networkMode));
  if (s.pidMode === 'host') parts.push("the host's processes");
  if (s.ipcMode === 'host') parts.push("the host's IPC");
  if (s.usernsMode === 'host') parts.push("the host's user namespace");
  const binds = s.mounts.filter((m) => m.type === 'bind').map((m) => m.source);
  parts.push(binds.length ? `host paths ${listed(binds)}` : 'no host paths');
  return `a container you attached: ${parts.join(', ')}`;
}

/** An attached container's SandboxInfo: unsandboxed, with reasons and fixes, when a setting lets its commands out. */
export function attachedSandbox(s: ContainerSettings, guarded: Guarded): SandboxInfo {
  const found = escapes(s, guarded);
  const base = { kind: 'container' as const, network: s.networkMode !== 'none', confinement: attachedLine(s) };
  if (found.length === 0) return { state: 'sandboxed', ...base };
  return {
    state: 'unsandboxed',
    ...base,
    reason: found.map((e) => e.what).join('; '),
    hint: `${found.map((e) => e.fix).join('; ')}; or let Switchboard make one (docker_image)`,
  };
}

/**
 * A managed container's SandboxInfo, from its spec: what containerConfig's create options give it. Its volumes never
 * hold the profile or an engine's socket (they are refused), so only the host's network lets its commands out.
 */
/**
 * Where a Docker target's work runs as its spec says: a managed container as Switchboard makes it; an attached one is
 * known only once inspected (undefined here: its Environment reports it).
 */
export function dockerSandboxFor(spec: DockerSpec | undefined): SandboxInfo | undefined {
  return spec && !spec.docker_container ? managedSandbox(spec) : undefined;
}

export function managedSandbox(spec: Pick<DockerSpec, 'docker_network' | 'docker_volumes'>): SandboxInfo {
  const volumes = spec.docker_volumes ?? [];
  const host = volumes.filter(mountsHostPath).map((v) => v.split(':')[0] ?? v);
  const named = volumes.filter((v) => !mountsHostPath(v)).map((v) => v.split(':')[0] ?? v);
  const network = spec.docker_network ?? '';
  const confinement =
    'a container Switchboard made: ' +
    [
      `no capabilities but ${keptCapabilities.join(', ')}`,
      'no new privileges',
      host.length ? `host folders ${listed(host)} (docker_volumes)` : 'no host folders',
      ...(named.length ? [`volumes ${listed(named)}`] : []),
      networkWords(network),
    ].join(', ');
  const base = { kind: 'container' as const, network: network !== 'none', confinement };
  if (network !== 'host') return { state: 'sandboxed', ...base };
  return {
    state: 'unsandboxed',
    ...base,
    reason: "it shares the host's network (docker_network: host)",
    hint: 'set docker_network to none, or to a network of its own',
  };
}
