// targets.*: the sidebar's list, problems, and add / edit / drain / remove over the runtime registry as provider `ui`.
import { SwitchboardError } from '../../../shared/errors.js';
import { SESSION_PROVIDER, type TargetInfo } from '../../../shared/targets.js';
import type { Handlers } from '../platform/index.js';
import { type Registry, type RegistryChange, specFingerprint } from '../registry/index.js';
import type { TargetTable } from './targetTable.js';
import { whoActs, type RecordAction } from '../activity/index.js';
import { weakeningSummary } from '../sandbox/index.js';

const who = { provider: 'ui' } as const;

/**
 * A person at the window may drain or remove any runtime target: ownership keeps programs from trampling
 * each other, and the person has the same authority the CLI gives with --provider/--owner-id.
 */
function ownerOf(registry: Registry, name: string): { provider: string; owner_id?: string } {
  registry.refresh();
  const rec = registry.list().find((r) => r.name === name);
  return rec ? { provider: rec.provider, ...(rec.owner_id ? { owner_id: rec.owner_id } : {}) } : who;
}

function result(c: RegistryChange): { action: string; name: string; generation: string } {
  return { action: c.action, name: c.record.name, generation: c.record.generation };
}

export interface TargetMethodDeps {
  targets: TargetTable;
  listTargets: () => TargetInfo[];
  /** The runtime registry; a Core built without one refuses changes. */
  registry: Registry | undefined;
  configNames: () => string[];
  /** Changes made from a client go to Activity and audit.jsonl. */
  record: RecordAction;
  /** Where a spec points, in its backend's own words (`ssh agent@compute:22`); never a secret field. */
  describe: (spec: Record<string, unknown>) => string;
  /** This Core run's id: the owner of the session targets it registers (removed when it stops). */
  sessionOwner: string;
}

export function targetMethods(deps: TargetMethodDeps) {
  const registry = (): Registry => {
    if (!deps.registry)
      throw new SwitchboardError('unsupported', 'this Core has no runtime registry', 'add targets to config.yaml');
    return deps.registry;
  };
  return {
    'targets.list': async () => deps.listTargets(),
    'targets.problems': async () => deps.targets.problems(),
    'targets.register': async ({ name, spec, replace, if_generation, session }, ctx) =>
      deps.record(
        {
          ...whoActs(ctx),
          tool: 'targets.register',
          execution_target: name,
          summary: `${session ? 'quick connect' : replace ? 'edit' : 'add'} ${name}: ${deps.describe(spec)}`,
        },
        async () => {
          if (deps.configNames().includes(name)) {
            throw new SwitchboardError(
              'registry_conflict',
              `"${name}" is a config target (config.yaml); edit it there`,
              'pick another name for a runtime target',
            );
          }
          const r = registry();
          if (session) {
            const change = await r.register({ provider: SESSION_PROVIDER, owner_id: deps.sessionOwner, name, spec });
            r.refresh();
            return result(change);
          }
          // Keeping a session target ("Save target…"): it stops being this run's and becomes the person's, so it is
          // taken out of the session first. Kept as it was, it keeps its generation: the same runtime identity, so its
          // open panes, cwd and approvals go on as if nothing happened; changed in the form, it is a new generation.
          r.refresh();
          const kept = r.list().find((rec) => rec.name === name && rec.provider === SESSION_PROVIDER);
          if (kept && !replace) await r.remove({ provider: SESSION_PROVIDER, owner_id: kept.owner_id, name });
          const same = kept && !replace && specFingerprint(kept.spec) === specFingerprint(spec);
          const change = await r.register({
            ...who,
            name,
            spec,
            replace,
            if_generation,
            ...(same ? { generation: kept.generation } : {}),
          });
          r.refresh();
          return result(change);
        },
        (res) => ({ generation: res.generation }),
      ),
    // Core.invoke let only a person through; the CLI writes the registry itself once this has answered.
    'targets.allowWeakening': async ({ entries, confirmed }, ctx) => {
      if (!confirmed) return { recorded: 0 };
      for (const e of entries)
        await deps.record(
          {
            client: ctx.client,
            tool: 'targets.allowWeakening',
            execution_target: e.name,
            summary: weakeningSummary(e),
          },
          async () => undefined,
        );
      return { recorded: entries.length };
    },
    'targets.drain': async ({ name, generation }, ctx) =>
      deps.record(
        {
          ...whoActs(ctx),
          tool: 'targets.drain',
          execution_target: name,
          generation,
          summary: `drain ${name}`,
        },
        async () => {
          const r = registry();
          const change = await r.drain({ ...ownerOf(r, name), name, generation });
          r.refresh();
          return result(change);
        },
        (res) => ({ generation: res.generation }),
      ),
    'targets.remove': async ({ name, generation }, ctx) =>
      deps.record(
        {
          ...whoActs(ctx),
          tool: 'targets.remove',
          execution_target: name,
          generation,
          summary: `remove ${name}`,
        },
        async () => {
          const r = registry();
          const owner = ownerOf(r, name);
          const change = await r.remove({ ...owner, name, generation });
          r.refresh();
          return result(change);
        },
        (res) => ({ generation: res.generation }),
      ),
  } satisfies Partial<Handlers>;
}
