// Every rule and wrapper, by the command name they judge, and every rule's examples. The tables are merged so that
// two rules for one command name fail when the policy loads (and so every test), instead of the later silently
// replacing the earlier.
import type { Rule, RuleExamples, Wrapper } from '../ruleKit.js';
import { deleteExamples, deleteRules } from './deleteRules.js';
import { escapeExamples, escapeRules } from './escapeRules.js';
import { databaseExamples, databaseRules } from './databaseRules.js';
import { leakExamples } from './leakRules.js';
import { machineExamples, machineRules } from './machineRules.js';
import { packageExamples, packageRules } from './packageRules.js';
import { secretExamples, secretRules } from './secretRules.js';
import { networkExamples, networkRules } from './networkRules.js';
import { permissionExamples, permissionRules } from './permissionRules.js';
import { pipeRules } from './pipeRules.js';
import { remoteCodeExamples, remoteCodeRules } from './remoteCodeRules.js';
import { remoteExamples, remoteRules } from './remoteRules.js';
import { remoteClis } from './remoteCliTable.js';
import { sqlExamples, sqlRules } from './sqlRules.js';
import { systemExamples, systemRules } from './systemRules.js';
import { toolExamples, toolRules } from './toolRules.js';
import { wrapperExamples, wrapperTable } from './wrapperRules.js';
import { writeExamples, writeRules } from './writeRules.js';

/**
 * The tables as one map; a name in two tables throws, naming both. Wrappers and rules share one name space: the
 * scanner peels a wrapper before it looks for a rule, so a rule under a wrapper's name would never run.
 */
export function mergeTables<T>(tables: Record<string, Record<string, T>>): Map<string, T> {
  const out = new Map<string, T>();
  const from = new Map<string, string>();
  for (const [table, entries] of Object.entries(tables))
    for (const [name, entry] of Object.entries(entries)) {
      const first = from.get(name);
      if (first !== undefined)
        throw new Error(`two rules for ${name}: in ${first} and in ${table}; merge them into one rule`);
      out.set(name, entry);
      from.set(name, table);
    }
  return out;
}

/** CLIs of the remote table whose rule lives with another family, which calls remoteCli for their verbs. */
const composedElsewhere = new Set(['aws', 'gcloud', 'az', 'kubectl', 'oc', 'gh', 'vault', 'supabase']);

const ruleTables = {
  remoteRules: remoteRules(composedElsewhere),
  writeRules,
  deleteRules,
  systemRules,
  permissionRules,
  toolRules,
  packageRules,
  databaseRules,
  sqlRules,
  remoteCodeRules,
  pipeRules,
  networkRules,
  machineRules,
  secretRules,
  escapeRules,
};
const table = mergeTables<Rule>(ruleTables);
const wrapperMap = mergeTables<Wrapper>({ wrapperTable });
mergeTables<unknown>({ rules: Object.fromEntries(table), wrapperTable });

/** Versioned and suffixed names judge like their family: python3.12, mkfs.ext4, pip3.11. */
function family(name: string): string {
  return name
    .replace(/^(python|pip|perl|ruby|node|php|pypy|psql|mysql)[\d.]*$/, '$1')
    .replace(/^(mkfs|fsck)\..*$/, '$1')
    .replace(/^pypy$/, 'python');
}

export const rules = {
  get(name: string): Rule | undefined {
    return table.get(name) ?? table.get(family(name));
  },
};

export const wrappers = {
  get(name: string): Wrapper | undefined {
    return wrapperMap.get(name);
  },
};

/** Every rule file's examples, for the test that runs them by rule id. */
export const ruleExamples: RuleExamples[] = [
  deleteExamples,
  escapeExamples,
  machineExamples,
  secretExamples,
  networkExamples,
  permissionExamples,
  remoteCodeExamples,
  sqlExamples,
  systemExamples,
  toolExamples,
  packageExamples,
  databaseExamples,
  remoteExamples,
  leakExamples,
  wrapperExamples,
  writeExamples,
];

/** The remote table's own examples, by CLI: commands that must ask and commands that must not. */
export const remoteCliExamples: [cli: string, asks: string[], quiet: string[]][] = Object.entries(remoteClis).map(
  ([cli, spec]) => [cli, spec.asks, spec.quiet],
);
