// Permissions and owners: world-writable modes, setuid, recursive changes on system paths, chown -R, and
// `chmod +x` remembered so that running the file next asks.
import { hasAny, parseOptions } from '../options.js';
import { vitalPath } from '../paths.js';
import type { Rule } from '../ruleKit.js';
import { isKnown } from '../scanTypes.js';

/** Does a chmod mode give write to others, or set the setuid/setgid bit? */
function modeRisk(mode: string): string | undefined {
  if (/^[0-7]{3,4}$/.test(mode)) {
    const digits = mode.padStart(4, '0');
    if ((Number(digits[3]) & 2) !== 0) return `makes {} writable by everyone (chmod ${mode})`;
    if ((Number(digits[0]) & 6) !== 0) return `sets the setuid/setgid bit on {} (chmod ${mode})`;
    return undefined;
  }
  for (const clause of mode.split(',')) {
    const m = /^([ugoa]*)([-+=])([rwxXstugo]*)$/.exec(clause);
    if (!m) continue;
    const [, who, op, perms] = m;
    if (op === '-') continue;
    if (perms!.includes('w') && (who === '' ? op === '=' : /[oa]/.test(who!))) return `makes {} writable by everyone (chmod ${mode})`;
    if (perms!.includes('s')) return `sets the setuid/setgid bit on {} (chmod ${mode})`;
  }
  return undefined;
}

function isExecutableMode(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (Number(mode[mode.length - 3]) & 1) !== 0;
  return /^[ugoa]*[+=][rwX]*x/.test(mode);
}

const chmod: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { longValue: ['reference'] });
  // A mode such as `-w` or `-x` parses as a flag; put it back as the mode.
  const modeFlag = [...p.flags].find((f) => /^-[rwxXst]$/.test(f));
  const first = p.operands[0]?.value ?? '';
  const firstIsMode = /^[0-7]{3,4}$|^[ugoa]*[-+=]/.test(first) || !modeFlag;
  const mode = firstIsMode ? first : modeFlag;
  const files = firstIsMode ? p.operands.slice(1) : p.operands;
  const recursive = hasAny(p, '-R', '--recursive');
  if (files.some((f) => kit.profileChange(c, f, 'chmod'))) return;
  const risk = modeRisk(mode);
  const system = files.find((f) => isKnown(f) && (vitalPath(kit.path(c, f), c.scope.state.home) || /^\/(etc|usr|bin|sbin|lib|boot|var)(\/|$)/.test(kit.path(c, f))));
  const where = files.map((f) => (isKnown(f) ? kit.path(c, f) : f.source)).join(' ');
  if (risk) kit.emit(c, 'dangerous', 'chmod.open', risk.replace('{}', where || 'the files'));
  else if (system && (recursive || /^\/(etc|usr|bin|sbin|lib|boot)/.test(kit.path(c, system)))) kit.emit(c, 'dangerous', 'chmod.system', `changes permissions of system files ${kit.path(c, system)} (chmod${recursive ? ' -R' : ''})`, system);
  if (isExecutableMode(mode)) for (const f of files) if (isKnown(f)) c.scope.state.madeExecutable.add(kit.path(c, f));
};

const chown = (label: string): Rule => (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { longValue: ['reference', 'from'] });
  const files = p.flags.has('--reference') ? p.operands : p.operands.slice(1);
  const recursive = hasAny(p, '-R', '--recursive');
  if (files.some((f) => kit.profileChange(c, f, label))) return;
  const system = files.find((f) => isKnown(f) && (vitalPath(kit.path(c, f), c.scope.state.home) || /^\/(etc|usr|bin|sbin|lib|boot|var)(\/|$)/.test(kit.path(c, f))));
  const where = files.map((f) => (isKnown(f) ? kit.path(c, f) : f.source)).join(' ');
  if (recursive) kit.emit(c, 'dangerous', 'chown.recursive', `changes the owner of everything under ${where} (${label} -R)`);
  else if (system) kit.emit(c, 'dangerous', 'chown.system', `changes the owner of system files ${kit.path(c, system)} (${label})`, system);
};

export const permissionRules: Record<string, Rule> = {
  chmod,
  chown: chown('chown'),
  chgrp: chown('chgrp'),
  chattr: (argv, c, kit) => {
    if (argv.slice(1).some((a) => kit.profileChange(c, a, 'chattr'))) return;
    if (argv.some((a) => /^-[a-z]*i/.test(a.value))) kit.emit(c, 'dangerous', 'chmod.system', 'removes the immutable flag (chattr -i)');
  },
  setfacl: (argv, c, kit) => {
    if (argv.slice(1).some((a) => kit.profileChange(c, a, 'setfacl'))) return;
    if (argv.some((a) => /o::?[r-]?w|other::?.?w/.test(a.value))) kit.emit(c, 'dangerous', 'chmod.open', 'makes files writable by everyone (setfacl)');
  },
};
