// Managed containers nobody owns any more: their profile was deleted, or (for this profile) their target or its
// generation is gone — removed or edited while no Core ran, so no cleanup('removed') took them. `switchboard doctor`
// lists them; `doctor --clean-orphans` removes them. Containers a target keeps on purpose (docker_keep) never are.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ContainerInfo } from 'dockerode';
import { runtimeIdentity, type TargetSpec } from '../../../../shared/targets.js';
import type { OrphanInfo } from '../provider.js';
import {
  generationLabel,
  keepLabel,
  profileLabel,
  profilePathLabel,
  shortHash,
  targetLabel,
} from './containerConfig.js';
import { dockerClient, engineError, engineStatus, parseDockerHost, type DockerEndpoint } from './dockerEndpoint.js';
import { deadline } from './engineCalls.js';
import { listWithLabelKey } from './engineHttp.js';
import { dockerSpec } from './fields.js';

/** Why this container is an orphan, or undefined when it is not one (or cannot be told). Pure. */
export function orphanReason(
  labels: Readonly<Record<string, string>>,
  home: string,
  identities: ReadonlySet<string> | undefined,
  profileExists: (path: string) => boolean,
): string | undefined {
  if (labels[keepLabel] === 'true') return undefined;
  const path = labels[profilePathLabel];
  const ours = path !== undefined ? resolve(path) === resolve(home) : labels[profileLabel] === shortHash(home);
  if (!ours) {
    // A container made before the path was recorded names its profile by hash only: it cannot be told apart.
    if (path === undefined) return undefined;
    return profileExists(path) ? undefined : `its profile ${path} no longer exists`;
  }
  // This profile's targets could not all be read (a broken config.yaml): none of its containers is judged.
  if (!identities) return undefined;
  const name = labels[targetLabel] ?? '';
  const identity = runtimeIdentity(name, labels[generationLabel] ?? '');
  if (identities.has(identity)) return undefined;
  return [...identities].some((i) => i.startsWith(`${name}#`))
    ? `target "${name}" has another generation now`
    : `target "${name}" no longer exists`;
}

/** The engines this profile's Docker targets use (`named`), and the default one. */
function engines(specs: ReadonlyMap<string, Readonly<TargetSpec>>): { endpoint: DockerEndpoint; named: boolean }[] {
  const byLabel = new Map<string, { endpoint: DockerEndpoint; named: boolean }>();
  const add = (host: string | undefined, named: boolean): void => {
    try {
      const endpoint = parseDockerHost(host);
      byLabel.set(endpoint.label, { endpoint, named: named || (byLabel.get(endpoint.label)?.named ?? false) });
    } catch {
      /* a docker_host that does not parse: its target's own probe says so */
    }
  };
  add(undefined, false);
  for (const s of specs.values()) if (s.backend === dockerSpec.backend) add(s.docker_host as string | undefined, true);
  return [...byLabel.values()];
}

export async function findOrphans(
  home: string,
  specs: ReadonlyMap<string, Readonly<TargetSpec>>,
  ownKnown: boolean,
): Promise<{ orphans: OrphanInfo[]; problems: string[]; remove(): Promise<string[]> }> {
  const identities = ownKnown ? new Set(specs.keys()) : undefined;
  const found: { endpoint: DockerEndpoint; info: ContainerInfo & { SizeRw?: number }; orphan: OrphanInfo }[] = [];
  const problems: string[] = [];
  for (const { endpoint, named } of engines(specs)) {
    let list: ContainerInfo[];
    try {
      list = await deadline((abortSignal) => listWithLabelKey(endpoint, targetLabel, abortSignal), 'list containers');
    } catch (err) {
      // The default engine need not exist; one a target uses should.
      if (!named) continue;
      problems.push(
        `orphan containers on ${endpoint.label} not checked: ${engineError(endpoint, err, 'list containers').message}`,
      );
      continue;
    }
    for (const info of list as (ContainerInfo & { SizeRw?: number })[]) {
      const why = orphanReason(info.Labels ?? {}, home, identities, existsSync);
      if (!why) continue;
      found.push({
        endpoint,
        info,
        orphan: {
          where: endpoint.label,
          name: (info.Names[0] ?? info.Id).replace(/^\//, ''),
          profile: info.Labels[profilePathLabel] ?? home,
          target: info.Labels[targetLabel] ?? '',
          why,
          created_at: new Date(info.Created * 1000).toISOString(),
          // Listed with size=true, the engine leaves SizeRw out when it is 0.
          size_bytes: info.SizeRw ?? 0,
        },
      });
    }
  }
  return {
    orphans: found.map((f) => f.orphan),
    problems,
    remove: async () => {
      const removed: string[] = [];
      for (const f of found) {
        try {
          await deadline(
            (abortSignal) =>
              dockerClient(f.endpoint).getContainer(f.info.Id).remove({ force: true, v: true, abortSignal }),
            'remove a container',
          );
        } catch (err) {
          if (engineStatus(err) !== 404) throw engineError(f.endpoint, err, `remove container ${f.orphan.name}`);
        }
        removed.push(f.orphan.name);
      }
      return removed;
    },
  };
}
