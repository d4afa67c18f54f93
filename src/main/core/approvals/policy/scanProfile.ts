// The Switchboard profile against what a command reads: a file holding the agent token named in any argument is
// refused whatever the command, and so is handing the whole profile to a command that copies, packs or searches what
// is under it; a write anywhere that matters (a device, the profile, a sensitive file) is said.
import { isBlockDevice, profileFinding, resolvePath, sensitiveWrite } from './paths.js';
import { commandName } from './ruleKit.js';
import { pathNamers } from './rules/secretRules.js';
import { isKnown, shown, type Arg, type CommandContext } from './scanTypes.js';
import type { ScanHost } from './scanRuns.js';

/** Commands that copy, pack, send or search everything under a directory they are given. */
const treeReaders = new Set([
  'tar',
  'gtar',
  'bsdtar',
  '7z',
  '7za',
  'cpio',
  'pax',
  'rgrep',
  'rg',
  'ag',
  'ack',
  'git',
  'duplicity',
  'restic',
  'borg',
  'rclone',
]);
/** … and those that do only when told to recurse (`cp -r`, `grep -R`, `zip -r`, `rsync -a`), or find with an action. */
const treeReadersWhenRecursive = new Set(['cp', 'gcp', 'scp', 'rsync', 'zip', 'grep', 'egrep', 'fgrep']);
const recursiveFlag = /^(-[a-zA-Z]*[rRa][a-zA-Z]*|--recursive|--archive|--dereference-recursive)$/;
const findAction = /^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/;
/** Commands that only name a file: they may name core.json (`test -f` is how a running Core is found). */
const namesOnly = new Set(pathNamers);
/**
 * Any argument naming a file that holds the agent token is refused, whatever the command (cat, less, grep, cp,
 * base64, an interpreter's script argument, `if=`): nothing an agent runs needs it. So is handing the whole profile
 * to a command that copies, packs or searches what is under it; handing it a directory above the profile (`grep -r
 * x ~`, `tar czf - ~`) asks, since core.json goes with it.
 */
export function checkProfileReads(s: ScanHost, c: CommandContext, argv: Arg[]): void {
  const home = c.scope.state.profile;
  const names = argv.map((a) => (isKnown(a) ? commandName(a.value) : ''));
  if (!home || namesOnly.has(names[0]!)) return;
  const recursive = argv.some((a) => recursiveFlag.test(a.value));
  const tree = names.find(
    (n) =>
      treeReaders.has(n) ||
      (treeReadersWhenRecursive.has(n) && recursive) ||
      (n === 'find' && argv.some((a) => findAction.test(a.value))),
  );
  for (const a of argv.slice(1)) {
    // `if=FILE` and `--file=FILE` name a file after their prefix.
    const eq = /^(?:-[-\w]*=|[a-z]+=)(.+)$/.exec(a.value);
    for (const value of eq ? [a.value, eq[1]!] : [a.value]) {
      if (profileRead(s, c, { ...a, value }, names[0] || 'a command')) break;
      if (!tree || !isKnown(value)) continue;
      const p = resolvePath(value, c.scope.cwd, c.scope.state.home);
      if (p === home) {
        s.emit(
          c,
          'hardline',
          'profile.read',
          `reads the Switchboard profile ${home}, where core.json holds the agent token (${tree})`,
          a,
        );
        break;
      }
      if (home.startsWith(p === '/' ? '/' : `${p}/`)) {
        s.emit(
          c,
          'dangerous',
          'profile.tree',
          `reads everything under ${p}, the Switchboard profile's core.json with the agent token too (${tree})`,
          a,
        );
        break;
      }
    }
  }
}

/** Refuses a read of a file that holds the agent token; true when `a` names one. */
export function profileRead(s: ScanHost, c: CommandContext, a: Arg, how: string): boolean {
  // As written: every argument of every command is looked at here, and a look-up on the target for each would cost.
  const f = profileFinding(resolvePath(a.value, c.scope.cwd, c.scope.state.home), c.scope.state.profile, false, how);
  if (f) s.emit(c, f.severity, f.rule, f.text, a);
  return f !== undefined;
}

/** Refuses a change to `a` (write, delete, mode, link) when it is in the Switchboard profile; true when it is. */
export function profileChange(s: ScanHost, c: CommandContext, a: Arg, how: string): boolean {
  const f = profileFinding(s.path(c, a), c.scope.state.profile, true, how);
  if (f) s.emit(c, f.severity, f.rule, f.text, a);
  return f !== undefined;
}

/** Flags a write to `a` if it is in the profile, a disk device, the kernel's trigger or a sensitive file. */
export function write(s: ScanHost, c: CommandContext, a: Arg, how: string): void {
  if (profileChange(s, c, a, how)) return;
  const p = s.path(c, a);
  (c.scope.state.changed ??= new Set()).add(p);
  if (isBlockDevice(p)) return s.emit(c, 'hardline', 'disk.overwrite', `overwrites the disk device ${p} (${how})`, a);
  if (p === '/proc/sysrq-trigger')
    return s.emit(c, 'hardline', 'power.sysrq', `triggers a kernel reboot or crash (${how} /proc/sysrq-trigger)`, a);
  const why = sensitiveWrite(p);
  if (why)
    return s.emit(
      c,
      'dangerous',
      'write.sensitive',
      `writes to ${shown(a) === a.value ? p : shown(a)}: ${why} (${how})`,
      a,
    );
  // Unsandboxed, a path the command builds as it runs (P=$(ls -d ~/.sw*); echo x >> "$P/config.yaml") could be the
  // profile or a start-up file: nothing else would stop it there, so it asks.
  if (c.scope.state.unsandboxed && !isKnown(a))
    s.emit(
      c,
      'dangerous',
      'write.unknown',
      `writes to ${shown(a)}, a path known only as it runs, on an unsandboxed target (${how})`,
      a,
    );
}
