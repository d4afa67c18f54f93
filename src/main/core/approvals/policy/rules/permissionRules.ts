// Permissions and owners: world-writable modes, setuid, modes that lock the owner out, chown -R, and `chmod +x`
// remembered so that running the file next asks. A recursive change of `/`, a system directory or the home is hardline.
import { hasAny, parseOptions } from '../options.js';
import { vitalPath } from '../paths.js';
import type { RuleExamples, Rule, RuleKit } from '../ruleKit.js';
import { isKnown, type Arg, type CommandContext } from '../scanTypes.js';

/** Does a chmod mode give write to others, or set the setuid/setgid bit? */
function modeRisk(mode: string): string | undefined {
  if (/^[0-7]{1,4}$/.test(mode)) {
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
    if (perms!.includes('w') && (who === '' ? op === '=' : /[oa]/.test(who!)))
      return `makes {} writable by everyone (chmod ${mode})`;
    if (perms!.includes('s')) return `sets the setuid/setgid bit on {} (chmod ${mode})`;
  }
  return undefined;
}

/** Does the mode take read access from the owner (`000`, `a-r`, `u=`), or, recursively, the owner's search bit? */
function lockout(mode: string, recursive: boolean): string | undefined {
  const text = `takes access away from its owner on {} (chmod${recursive ? ' -R' : ''} ${mode})`;
  if (/^[0-7]{1,4}$/.test(mode)) {
    const owner = Number(mode.padStart(3, '0').slice(-3)[0]);
    return (owner & 4) === 0 ||
      (recursive &&
        (owner & 1) === 0 &&
        mode !== '644' &&
        mode !== '0644' &&
        mode !== '600' &&
        mode !== '0600' &&
        mode !== '444' &&
        mode !== '400')
      ? text
      : undefined;
  }
  for (const clause of mode.split(',')) {
    const m = /^([ugoa]*)([-+=])([rwxXst]*)$/.exec(clause);
    if (!m || !/^$|[ua]/.test(m[1]!)) continue;
    if ((m[2] === '-' && m[3]!.includes('r')) || (m[2] === '=' && !m[3]!.includes('r'))) return text;
    if (recursive && m[2] === '-' && m[3]!.includes('x') && !m[3]!.includes('X')) return text;
  }
  return undefined;
}

/**
 * A recursive mode or owner change of `/`, a system directory or the home breaks the system (sudo, ssh and
 * services check these): hardline. A web root (`/var/www`) is data that services are meant to own.
 */
function systemTree(kit: RuleKit, c: CommandContext, files: Arg[], label: string): boolean {
  const hit = files.find(
    (f) =>
      isKnown(f) && vitalPath(kit.path(c, f), c.scope.state.home) && !/^\/(var\/www|srv\/[^/]+)$/.test(kit.path(c, f)),
  );
  if (hit) kit.emit(c, 'hardline', 'chmod.vital', `recursive change of ${kit.path(c, hit)} (${label})`, hit);
  return hit !== undefined;
}

function isExecutableMode(mode: string): boolean {
  if (/^[0-7]{1,4}$/.test(mode)) return (Number(mode.padStart(3, '0').slice(-3)[0]) & 1) !== 0;
  return /^[ugoa]*[+=][rwX]*x/.test(mode);
}

const chmod: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { longValue: ['reference'] });
  // A mode such as `-w` or `-x` parses as a flag; put it back as the mode.
  const modeFlag = [...p.flags].find((f) => /^-[rwxXst]$/.test(f));
  const first = p.operands[0]?.value ?? '';
  const firstIsMode = /^[0-7]{1,4}$|^[ugoa]*[-+=]/.test(first) || !modeFlag;
  const mode = firstIsMode ? first : modeFlag;
  const files = firstIsMode ? p.operands.slice(1) : p.operands;
  const recursive = hasAny(p, '-R', '--recursive');
  if (files.some((f) => kit.profileChange(c, f, 'chmod'))) return;
  if (recursive && systemTree(kit, c, files, 'chmod -R')) return;
  const risk = modeRisk(mode) ?? lockout(mode, recursive);
  // Without read and search on `/` or a system directory, nothing below it can be reached: hardline even without -R.
  const locked =
    !modeRisk(mode) && lockout(mode, false)
      ? files.find(
          (f) =>
            isKnown(f) &&
            vitalPath(kit.path(c, f), c.scope.state.home)?.kind !== undefined &&
            vitalPath(kit.path(c, f), c.scope.state.home)?.kind !== 'home',
        )
      : undefined;
  if (locked)
    return kit.emit(
      c,
      'hardline',
      'chmod.vital',
      `locks everyone out of ${kit.path(c, locked)} (chmod ${mode})`,
      locked,
    );
  const system = files.find(
    (f) =>
      isKnown(f) &&
      (vitalPath(kit.path(c, f), c.scope.state.home) ||
        /^\/(etc|usr|bin|sbin|lib|boot|var)(\/|$)/.test(kit.path(c, f))),
  );
  const where = files.map((f) => (isKnown(f) ? kit.path(c, f) : f.source)).join(' ');
  if (risk) kit.emit(c, 'dangerous', 'chmod.open', risk.replace('{}', where || 'the files'));
  else if (system && (recursive || /^\/(etc|usr|bin|sbin|lib|boot)/.test(kit.path(c, system))))
    kit.emit(
      c,
      'dangerous',
      'chmod.system',
      `changes permissions of system files ${kit.path(c, system)} (chmod${recursive ? ' -R' : ''})`,
      system,
    );
  if (isExecutableMode(mode)) for (const f of files) if (isKnown(f)) c.scope.state.madeExecutable.add(kit.path(c, f));
};

const chown =
  (label: string): Rule =>
  (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), { longValue: ['reference', 'from'] });
    const files = p.flags.has('--reference') ? p.operands : p.operands.slice(1);
    const recursive = hasAny(p, '-R', '--recursive');
    if (files.some((f) => kit.profileChange(c, f, label))) return;
    if (recursive && systemTree(kit, c, files, `${label} -R`)) return;
    const system = files.find(
      (f) =>
        isKnown(f) &&
        (vitalPath(kit.path(c, f), c.scope.state.home) ||
          /^\/(etc|usr|bin|sbin|lib|boot|var)(\/|$)/.test(kit.path(c, f))),
    );
    const where = files.map((f) => (isKnown(f) ? kit.path(c, f) : f.source)).join(' ');
    if (recursive)
      kit.emit(c, 'dangerous', 'chown.recursive', `changes the owner of everything under ${where} (${label} -R)`);
    else if (system)
      kit.emit(
        c,
        'dangerous',
        'chown.system',
        `changes the owner of system files ${kit.path(c, system)} (${label})`,
        system,
      );
  };

export const permissionRules: Record<string, Rule> = {
  chmod,
  chown: chown('chown'),
  chgrp: chown('chgrp'),
  setfacl: (argv, c, kit) => {
    if (argv.slice(1).some((a) => kit.profileChange(c, a, 'setfacl'))) return;
    const files = argv
      .slice(1)
      .filter(
        (a, i) =>
          !a.value.startsWith('-') &&
          !/^(-m|-M|-x|-X|--modify|--remove|--set|--set-file|--modify-file|--remove-file)$/.test(argv[i]!.value),
      );
    if (
      argv.some((a) => /^(-R|--recursive|-[a-zA-Z]*R[a-zA-Z]*)$/.test(a.value)) &&
      systemTree(kit, c, files, 'setfacl -R')
    )
      return;
    if (argv.some((a) => /o::?[r-]?w|other::?.?w/.test(a.value)))
      kit.emit(c, 'dangerous', 'chmod.open', 'makes files writable by everyone (setfacl)');
  },
};

export const permissionExamples: RuleExamples = {
  'chmod.open': {
    match: ['chmod -R 777 .', 'chmod 666 ~/.bashrc'],
    notMatch: ['chmod +x scripts/build.sh', 'chmod -R 755 dist'],
  },
  'chmod.system': { match: ['chmod 755 /usr/local/bin/tool'], notMatch: ['chmod 644 README.md'] },
  'chmod.vital': { match: ['chmod -R 000 /', 'chmod -R 755 /usr'], notMatch: ['chmod -R u+w build'] },
  'chown.recursive': { match: ['chown -R nobody ~/shared'], notMatch: ['chown agent notes.txt'] },
  'chown.system': { match: ['chown agent /etc/hosts'], notMatch: ['chown agent notes.txt'] },
};
