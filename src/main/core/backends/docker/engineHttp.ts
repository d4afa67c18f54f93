// The Engine API's read-only requests (ping, inspect, list) over plain node:http: what a health probe asks, without
// loading dockerode, whose require pulls in ssh2, gRPC and protobufjs (an idle Core's memory: README, Speed, P7).
// Measured (whole processes, medians of 10, 2026-12): `require('dockerode')` takes a process to 61.2 MB at its peak
// and 392 ms of CPU, `require('node:http')` to 41.5 MB and 133 ms: a Core that only watches Docker targets' health
// would hold 20 MB more than the 80 MB goal allows it. Work on a container (exec, files, lifecycle) loads dockerode.
import { request } from 'node:http';
import type { ContainerInfo, ContainerInspectInfo } from 'dockerode';
import type { DockerEndpoint } from './dockerEndpoint.js';

/**
 * What a refused request throws: the shape docker-modem gives its errors (statusCode, the Engine's JSON reply), so
 * engineError, engineStatus and engineMessage read both alike.
 */
export class EngineReplyError extends Error {
  constructor(
    readonly statusCode: number,
    readonly json: unknown,
  ) {
    const said =
      typeof json === 'object' && json !== null && typeof (json as { message?: unknown }).message === 'string'
        ? (json as { message: string }).message
        : String(json);
    super(`(HTTP code ${statusCode}) ${said}`);
  }
}

/** One GET on the Engine; resolves to its reply parsed as JSON (or its text when it is not JSON). */
export function engineGet(endpoint: DockerEndpoint, path: string, abortSignal: AbortSignal): Promise<unknown> {
  const where =
    endpoint.kind === 'unix' ? { socketPath: endpoint.socketPath } : { host: endpoint.host, port: endpoint.port };
  return new Promise((resolve, reject) => {
    // No pooled socket: a probe every minute gains nothing from keeping one open between them.
    const req = request({ ...where, path, method: 'GET', agent: false, signal: abortSignal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // `/_ping` answers "OK"; an error page may be plain text too.
        }
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve(body);
        else reject(new EngineReplyError(status, body));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The Engine answers at all (GET /_ping). */
export async function pingEngine(endpoint: DockerEndpoint, abortSignal: AbortSignal): Promise<void> {
  await engineGet(endpoint, '/_ping', abortSignal);
}

/** GET /containers/{ref}/json, as dockerode's inspect() returns it. */
export async function inspectContainer(
  endpoint: DockerEndpoint,
  ref: string,
  abortSignal: AbortSignal,
): Promise<ContainerInspectInfo> {
  return (await engineGet(
    endpoint,
    `/containers/${encodeURIComponent(ref)}/json`,
    abortSignal,
  )) as ContainerInspectInfo;
}

/**
 * Every container (running or not) carrying all these labels (`key=value`), as dockerode's listContainers returns them.
 */
export async function listLabelled(
  endpoint: DockerEndpoint,
  labels: string[],
  abortSignal: AbortSignal,
): Promise<ContainerInfo[]> {
  const query = new URLSearchParams({ all: 'true', filters: JSON.stringify({ label: labels }) });
  return (await engineGet(endpoint, `/containers/json?${query.toString()}`, abortSignal)) as ContainerInfo[];
}

/** Every container carrying the label key `key` (any value), with its writable layer's size (SizeRw). */
export async function listWithLabelKey(
  endpoint: DockerEndpoint,
  key: string,
  abortSignal: AbortSignal,
): Promise<ContainerInfo[]> {
  const query = new URLSearchParams({ all: 'true', size: 'true', filters: JSON.stringify({ label: [key] }) });
  return (await engineGet(endpoint, `/containers/json?${query.toString()}`, abortSignal)) as ContainerInfo[];
}
