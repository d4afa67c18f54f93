// Every rule and wrapper, by the command name they judge.
import type { Rule, Wrapper } from '../ruleKit.js';
import { deleteRules } from './deleteRules.js';
import { escapeRules } from './escapeRules.js';
import { machineRules } from './machineRules.js';
import { secretRules } from './secretRules.js';
import { networkRules } from './networkRules.js';
import { permissionRules } from './permissionRules.js';
import { remoteCodeRules } from './remoteCodeRules.js';
import { sqlRules } from './sqlRules.js';
import { systemRules } from './systemRules.js';
import { toolRules } from './toolRules.js';
import { wrapperTable } from './wrapperRules.js';
import { writeRules } from './writeRules.js';

const table = new Map<string, Rule>(
  Object.entries({
    ...writeRules,
    ...deleteRules,
    ...systemRules,
    ...permissionRules,
    ...toolRules,
    ...sqlRules,
    ...remoteCodeRules,
    ...networkRules,
    ...machineRules,
    ...secretRules,
    ...escapeRules,
  }),
);

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

const wrapperMap = new Map<string, Wrapper>(Object.entries(wrapperTable));
export const wrappers = {
  get(name: string): Wrapper | undefined {
    return wrapperMap.get(name);
  },
};
