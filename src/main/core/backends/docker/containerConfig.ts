// Pure pieces of the managed container: its name, labels, Engine create options, and the shell scripts we run inside.
import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { SwitchboardError } from '../../../../shared/errors.js';
import type { ContainerCreateOptions } from 'dockerode';
import type { DockerSpec } from './fields.js';
import enterDirFile from '../shell/enterDir.sh';
import paneShellFile from './paneShell.sh';
import { shellAssignments, shellQuote, withoutComments } from '../shell/shellWrap.js';
import killJobsProgram from './killJobs.sh';
import { END_GRACE_MS, GENTLE_SIGNAL_NAMES, type GentleSignalName } from '../../platform/index.js';

export const targetLabel = 'switchboard.target';
export const generationLabel = 'switchboard.generation';
/** Two profiles (SWITCHBOARD_HOME) with a same-named target must not share a container. */
export const profileLabel = 'switchboard.profile';
/**
 * The profile's path itself (the short hash above cannot say whether a profile still exists): how doctor finds orphans.
 */
export const profilePathLabel = 'switchboard.profile_path';
/** Set on a container whose target says docker_keep: kept on purpose when its target goes, so never an orphan. */
export const keepLabel = 'switchboard.keep';

/**
 * Capabilities a shell needs for ordinary work as root inside the container (chown/chmod files it
 * does not own, read root-only files, let apt/su drop to another user); everything else is dropped.
 */
export const keptCapabilities = ['CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'SETUID', 'SETGID'] as const;
export const defaultPidsLimit = 256;

/**
 * PID 1 of a managed container: sleeps until stopped. A shell loop rather than `sleep infinity`
 * because PID 1 gets no default signal handlers: the trap makes `docker stop` immediate.
 */
export const keepAliveScript = 'trap "exit 0" TERM INT HUP; while :; do sleep 86400 & wait $!; done';

export function shortHash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 12);
}

export function managedLabels(name: string, generation: string, profile: string): Record<string, string> {
  return { [targetLabel]: name, [generationLabel]: generation, [profileLabel]: profile };
}

/** What a new managed container carries: the labels it is found by, and what doctor reads. */
export function createLabels(
  found: Record<string, string>,
  profilePath: string,
  keep: boolean,
): Record<string, string> {
  return { ...found, [profilePathLabel]: profilePath, ...(keep ? { [keepLabel]: 'true' } : {}) };
}

/** A deterministic name, so two Environments racing to create the same container collide (409) instead of doubling. */
export function managedContainerName(name: string, generation: string, profile: string): string {
  return `switchboard-${name.replace(/[^A-Za-z0-9_.-]/g, '_')}-${shortHash(profile, name, generation)}`;
}

/** `512m` → bytes, as the docker CLI counts (binary units). */
export function parseMemory(value: string): number {
  const m = /^(\d+)([kmgKMG]?)$/.exec(value);
  if (!m) throw new Error(`not a size: ${value}`);
  const unit = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Number(m[1]) * unit;
}

export function envList(...maps: (Record<string, string> | undefined)[]): string[] {
  const merged: Record<string, string> = {};
  for (const m of maps) Object.assign(merged, m);
  return Object.entries(merged).map(([k, v]) => `${k}=${v}`);
}

/** Where container engines listen: a container that mounts one of these (or a folder holding one) commands the host. */
export const ENGINE_SOCKETS = [
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/containerd',
  '/var/run/containerd',
  '/run/podman',
  '/var/run/podman',
];

/** What must never be inside a container: the Switchboard profile and container engines' sockets. */
export interface Guarded {
  profile: string;
  /** The person's home, for a `~/…` source. */
  home: string;
  /** Engine sockets beyond the usual places (the one the target's docker_host names). */
  sockets?: readonly string[];
}

/**
 * What of `guarded` a host path would put in a container: the path itself, a path inside it, or a folder holding it
 * (`/` holds everything: the profile comes first). Undefined for a path that holds neither.
 */
export function guardedInside(
  hostPath: string,
  guarded: Guarded,
): { what: 'profile' | 'socket'; path: string } | undefined {
  const full = posix.resolve(
    hostPath === '~' || hostPath.startsWith('~/') ? guarded.home + hostPath.slice(1) : hostPath,
  );
  const overlaps = (p: string): boolean =>
    full === p || full.startsWith(`${p}/`) || p.startsWith(full === '/' ? '/' : `${full}/`);
  const profile = posix.resolve(guarded.profile);
  if (overlaps(profile)) return { what: 'profile', path: guarded.profile };
  const socket = [...ENGINE_SOCKETS, ...(guarded.sockets ?? [])].find(overlaps);
  return socket ? { what: 'socket', path: socket } : undefined;
}

/**
 * Why a `host:container[:opts]` volume may not be mounted into a managed container, or undefined: it would put the
 * Switchboard profile (the agent token, config and rules) or a container engine's socket inside — the path itself, a
 * path inside it, or a folder holding it. Named volumes are the engine's own and always fine.
 */
export function forbiddenMount(volume: string, guarded: Guarded): string | undefined {
  const source = volume.split(':')[0] ?? '';
  if (!source.startsWith('/') && !source.startsWith('~')) return undefined;
  const inside = guardedInside(source, guarded);
  if (inside?.what === 'profile') return `it would put the Switchboard profile (${inside.path}) in the container`;
  if (inside) return `it would put a container engine's socket (${inside.path}) in the container`;
  return undefined;
}

/** Engine create options of a managed container: locked down, nothing of the host unless listed. */
export function managedContainerOptions(
  spec: DockerSpec,
  labels: Record<string, string>,
  name: string,
  guarded: Guarded,
): ContainerCreateOptions {
  if (!spec.docker_image) throw new Error('managedContainerOptions needs docker_image');
  for (const volume of spec.docker_volumes ?? []) {
    const why = forbiddenMount(volume, guarded);
    if (why)
      throw new SwitchboardError(
        'bad_request',
        `docker_volumes "${volume}" is refused: ${why}`,
        'mount a folder that holds neither (a project folder, a named volume)',
      );
  }
  const hostConfig: NonNullable<ContainerCreateOptions['HostConfig']> = {
    CapDrop: ['ALL'],
    CapAdd: [...keptCapabilities],
    SecurityOpt: ['no-new-privileges'],
    PidsLimit: spec.docker_pids_limit ?? defaultPidsLimit,
    Binds: [...(spec.docker_volumes ?? [])],
    Init: false,
    RestartPolicy: { Name: 'no', MaximumRetryCount: 0 },
  };
  if (spec.docker_cpus !== undefined) hostConfig.NanoCpus = Math.round(spec.docker_cpus * 1e9);
  if (spec.docker_memory !== undefined) hostConfig.Memory = parseMemory(spec.docker_memory);
  if (spec.docker_network !== undefined) hostConfig.NetworkMode = spec.docker_network;
  return {
    name,
    Image: spec.docker_image,
    Entrypoint: ['/bin/sh', '-c'],
    Cmd: [keepAliveScript],
    Env: envList(spec.docker_env),
    Labels: labels,
    Tty: false,
    OpenStdin: false,
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    HostConfig: hostConfig,
  };
}

const enterDirProgram = withoutComments(enterDirFile);
const paneShell = withoutComments(paneShellFile);

/** Shell lines that enter `dir`, or its nearest existing parent, or / (as wrapCommand does): shell/enterDir.sh. */
export function enterDirScript(dir: string): string {
  return `__sb_d=${shellQuote(dir)}\n${enterDirProgram}`;
}

/** The environment variable that tags every process we start, so a second exec can find and kill them all. */
export const jobVar = '__sb_job';

/**
 * Ends every process carrying one of these job tokens in its environment (and the process group
 * each one leads) gently: `signals` (HUP and TERM, processes/endGently.ts; interactive shells ignore TERM), up to
 * `graceTenths` × 0.1 s to go, then KILL. Finding by environment rather
 * than by process group also catches children that started their own session. All matches are
 * collected before the first signal: killing a child first would wake its shell, which would run on. The program is
 * killJobs.sh.
 */
export function killJobsScript(
  tokens: readonly string[],
  signals: readonly GentleSignalName[] = GENTLE_SIGNAL_NAMES,
  graceTenths = END_GRACE_MS / 100,
  shellGroup?: number,
): string {
  for (const t of tokens) if (!/^[0-9a-f]+$/.test(t)) throw new Error('job tokens are hex');
  if (shellGroup !== undefined && !Number.isInteger(shellGroup)) throw new Error('a process group is a number');
  const values = {
    __sb_pattern: `${jobVar}=(${tokens.join('|')})`,
    __sb_sigs: signals.join(' '),
    __sb_tenths: graceTenths,
    __sb_group: shellGroup ?? '',
  };
  return `${shellAssignments(values)}\n${killJobsProgram}`;
}

/** How an interactive pane starts: docker_shell if set, else bash where the image has it, else sh (paneShell.sh). */
export function interactiveShellScript(cwd: string, shell: string | undefined): string {
  return `${enterDirScript(cwd)}${shellAssignments({ __sb_shell: shell ?? '' })}\n${paneShell}`;
}

/** The directory a target starts in: the image's WORKDIR, else the user's home when it exists, else /. */
export const homeProbeScript = 'if [ -n "$HOME" ] && [ -d "$HOME" ]; then printf %s "$HOME"; else printf /; fi';

export function pickHome(workingDir: string | undefined, probed: string | undefined): string {
  if (workingDir?.startsWith('/') && workingDir !== '/') return workingDir;
  if (probed?.startsWith('/')) return probed;
  return '/';
}
