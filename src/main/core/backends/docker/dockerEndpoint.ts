// Where the Docker Engine listens (docker_host, DOCKER_HOST, the default socket) and how its failures read.
import type Docker from 'dockerode';
import { SwitchboardError } from '../../../../shared/errors.js';
// dockerode (and its HTTP stack) is loaded when a Docker target is first used: a Core without one never pays for it.
import { loadDockerode } from './dockerodeLib.js';

export type DockerEndpoint =
  | { kind: 'unix'; socketPath: string; label: string }
  | { kind: 'tcp'; host: string; port: number; label: string };

export const defaultDockerSocket = '/var/run/docker.sock';

/**
 * docker_host, else DOCKER_HOST, else the default socket. Accepts `unix:///path`, a bare absolute
 * path, `tcp://host:port` (plain HTTP; 2375 when no port). Anything else is a config error.
 */
export function parseDockerHost(
  value: string | undefined,
  envHost: string | undefined = process.env.DOCKER_HOST,
): DockerEndpoint {
  const raw = (value ?? envHost ?? '').trim() || `unix://${defaultDockerSocket}`;
  if (raw.startsWith('/')) return { kind: 'unix', socketPath: raw, label: `unix://${raw}` };
  if (raw.startsWith('unix://')) {
    const socketPath = raw.slice('unix://'.length) || defaultDockerSocket;
    if (!socketPath.startsWith('/')) throw badHost(raw, 'a unix socket path must be absolute');
    return { kind: 'unix', socketPath, label: `unix://${socketPath}` };
  }
  if (raw.startsWith('tcp://') || raw.startsWith('http://')) {
    let url: URL;
    try {
      url = new URL(raw.replace(/^tcp:/, 'http:'));
    } catch {
      throw badHost(raw, 'expected tcp://host:port');
    }
    if (!url.hostname) throw badHost(raw, 'expected tcp://host:port');
    const port = url.port ? Number(url.port) : 2375;
    // The label never carries userinfo, so a password in the URL cannot reach a message.
    return { kind: 'tcp', host: url.hostname.replace(/^\[|\]$/g, ''), port, label: `tcp://${url.hostname}:${port}` };
  }
  throw badHost(raw, 'use a unix socket path (unix:///var/run/docker.sock) or tcp://host:port');
}

function badHost(raw: string, why: string): SwitchboardError {
  const shown = raw.replace(/\/\/[^@/]*@/, '//');
  return new SwitchboardError(
    'bad_config',
    `docker_host "${shown}" is not usable: ${why}`,
    'set docker_host to unix:///path/to/docker.sock or tcp://host:port',
  );
}

/** A dockerode client bound to exactly this endpoint, whatever DOCKER_HOST says. */
export function dockerClient(endpoint: DockerEndpoint): Docker {
  const Dockerode = loadDockerode();
  // docker-modem merges its DOCKER_HOST defaults under these options, so every field is set explicitly.
  return endpoint.kind === 'unix'
    ? new Dockerode({ socketPath: endpoint.socketPath, host: undefined, port: undefined, protocol: 'http' })
    : new Dockerode({ host: endpoint.host, port: endpoint.port, protocol: 'http', socketPath: undefined });
}

const unreachableCodes = new Set([
  'ENOENT',
  'ECONNREFUSED',
  'EACCES',
  'EPERM',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENOTSOCK',
  'ECONNABORTED',
]);

interface EngineErrorShape {
  code?: unknown;
  name?: unknown;
  statusCode?: unknown;
  message?: unknown;
  json?: unknown;
}

function shape(err: unknown): EngineErrorShape {
  return typeof err === 'object' && err !== null ? (err as EngineErrorShape) : {};
}

/** The HTTP status of an Engine reply, when the error is one. */
export function engineStatus(err: unknown): number | undefined {
  const s = shape(err).statusCode;
  return typeof s === 'number' ? s : undefined;
}

/** The Engine's own one-line message ("No such container: x"), else the error's. */
export function engineMessage(err: unknown): string {
  const e = shape(err);
  const json = e.json;
  if (typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string') {
    return firstLine((json as { message: string }).message);
  }
  if (typeof json === 'string' && json.trim()) return firstLine(json);
  return firstLine(typeof e.message === 'string' ? e.message : String(err));
}

/** True when the Engine could not be reached at all (as opposed to answering with an error). */
export function isUnreachable(err: unknown): boolean {
  const e = shape(err);
  if (e.name === 'AbortError' || e.name === 'TimeoutError') return true;
  return typeof e.code === 'string' && unreachableCodes.has(e.code) && engineStatus(err) === undefined;
}

/** One clear error naming the endpoint; permission problems get their own hint. */
export function unreachableError(endpoint: DockerEndpoint, err: unknown): SwitchboardError {
  const e = shape(err);
  const code =
    typeof e.code === 'string' ? e.code : e.name === 'AbortError' || e.name === 'TimeoutError' ? 'no answer' : 'error';
  const why: Record<string, string> = {
    ENOENT: 'no socket there',
    ECONNREFUSED: 'connection refused',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    'no answer': 'no answer in time',
  };
  const hint =
    code === 'EACCES' || code === 'EPERM'
      ? 'run Switchboard as a user in the docker group, or point docker_host at an engine you may use'
      : 'start the Docker engine, or set docker_host to a reachable engine (unix socket path or tcp://host:port)';
  return new SwitchboardError(
    'target_unreachable',
    `docker engine at ${endpoint.label} is unreachable (${why[code] ?? code})`,
    hint,
  );
}

/** Map anything the Engine threw to a SwitchboardError; `what` says what we were doing. */
export function engineError(endpoint: DockerEndpoint, err: unknown, what: string): SwitchboardError {
  if (err instanceof SwitchboardError) return err;
  if (isUnreachable(err)) return unreachableError(endpoint, err);
  const status = engineStatus(err);
  const msg = engineMessage(err);
  if (status === 400)
    return new SwitchboardError(
      'bad_config',
      `docker engine refused to ${what}: ${msg}`,
      'check the docker_* keys of this target',
    );
  return new SwitchboardError('internal', `docker engine failed to ${what}: ${msg}`);
}

function firstLine(s: string): string {
  return (s.split('\n')[0] ?? '').trim();
}
