// Deletes: rm (flags in any order, long or short, after operands), find -delete / -exec, xargs rm, rimraf,
// shred, mv to /dev/null, rsync --delete. A recursive delete (or move, or rsync --delete) of /, a system directory or
// the home is hardline.
// Over 380 lines: one rule family sharing the judgement of what a delete reaches; each rule carries its examples.
import { posix } from 'node:path';
import { hasAny, parseOptions } from '../options.js';
import {
  buildOutput,
  generatedName,
  inGeneratedOutput,
  inWorkspace,
  isBlockDevice,
  scratchPath,
  sensitiveWrite,
  vitalPath,
} from '../paths.js';

import { commandName, type Rule, type RuleExamples, type RuleKit } from '../ruleKit.js';
import { DESCRIBED, UNKNOWN, isKnown, shown, unknownAs, type Arg, type CommandContext } from '../scanTypes.js';

function scratchOrBuild(p: string, workspace: string | undefined): boolean {
  return scratchPath(p) || (inWorkspace(p, workspace) && buildOutput(p));
}

/**
 * A file the agent may remove without asking, even forced: below the command's workspace, which is a project rather
 * than the home itself, and not a glob that names every file there (`*`, `.*`, `*.*`). A path outside it (`../x`,
 * `~/x`, `/etc/passwd`), one named at run time, and sensitive or profile files (judged before this) still ask.
 */
function workspaceFile(p: string, c: CommandContext): boolean {
  const { workspace, home } = c.scope.state;
  if (workspace === undefined || vitalPath(workspace, home)?.kind === 'home') return false;
  if (!p.startsWith('/') || p.includes(UNKNOWN) || p === workspace || !inWorkspace(p, workspace)) return false;
  return /[^*?[\].]/.test(posix.basename(p));
}

/**
 * Is this operand of a recursive delete generated output in a project workspace, which it may remove without asking?
 * With facts from the target (TreeFact) git decides: what holds no tracked file and is ignored by .gitignore or has a
 * well-known output name; what is not there yet is judged by its name. Without them (no
 * target to look at, or before the look) its names decide (`node_modules`, `dist`, `build/*`, `__pycache__`); a glob is
 * judged by its names alone.
 */
function generated(kit: RuleKit, c: CommandContext, a: Arg): boolean {
  const { workspace, home, facts, needs } = c.scope.state;
  if (!isKnown(a) || workspace === undefined || vitalPath(workspace, home)?.kind === 'home') return false;
  const p = kit.path(c, a);
  if (!p.startsWith('/') || p === workspace || !inWorkspace(p, workspace) || sensitiveWrite(p)) return false;
  // Made earlier in the same command (`ln -s ~ build && rm -rf build/`): neither its name nor a look says what it is.
  for (const w of c.scope.state.changed ?? [])
    if (w === p || p.startsWith(`${w}/`) || w.startsWith(`${p}/`)) return false;
  const byName = inGeneratedOutput(p, workspace);
  if (/[*?[]/.test(p)) return byName;
  needs?.trees?.add(p);
  const fact = facts?.trees?.get(p);
  if (!fact || fact.kind === 'missing') return byName;
  return !fact.tracked && (fact.ignored || byName);
}

/** How a deleted path reads: the resolved path when it is known (`~` → /home/agent), else as written. */
function named(kit: RuleKit, c: CommandContext, a: Arg): string {
  return isKnown(a) ? kit.path(c, a) : shown(a);
}

function list(items: string[]): string {
  return items.length <= 3 ? items.join(', ') : `${items.slice(0, 3).join(', ')} and ${items.length - 3} more`;
}

/** Reports each operand of a delete: hardline for vital paths when recursive, sensitive files always. */
function deleteOperands(kit: RuleKit, c: CommandContext, operands: Arg[], recursive: boolean, label: string): boolean {
  let vital = false;
  for (const op of operands) {
    if (kit.profileChange(c, op, label)) {
      vital = true;
      continue;
    }
    const p = kit.path(c, op);
    if (recursive && isKnown(op) && vitalPath(p, c.scope.state.home)) {
      kit.emit(c, 'hardline', 'delete.vital', `recursive delete of ${p} (${label})`, op);
      vital = true;
      continue;
    }
    const why = sensitiveWrite(p);
    if (why) kit.emit(c, 'dangerous', 'delete.sensitive', `deletes ${named(kit, c, op)}: ${why} (${label})`, op);
  }
  return vital;
}

const rm: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1));
  const recursive = hasAny(p, '-r', '-R', '--recursive') || p.flags.has('--no-preserve-root');
  const force = hasAny(p, '-f', '--force');
  const label = recursive && force ? 'rm -rf' : recursive ? 'rm -r' : force ? 'rm -f' : 'rm';
  if (deleteOperands(kit, c, p.operands, recursive, label)) return;
  const what = list(p.operands.map((a) => named(kit, c, a))) || 'its input';
  // Generated output in the workspace goes unasked; the reason names only what is work.
  const work = recursive ? p.operands.filter((a) => !generated(kit, c, a)) : [];
  if (recursive && (work.length > 0 || p.operands.length === 0))
    kit.emit(
      c,
      'dangerous',
      'delete.recursive',
      `recursive delete of ${list(work.map((a) => named(kit, c, a))) || 'its input'} (${label})`,
    );
  else if (recursive) return;
  // A forced delete of files in the workspace is everyday: `rm -f build/x.o`, `rm -f notes.txt` (without -r, -f
  // only stops rm asking about write-protected files and missing ones).
  else if (
    force &&
    !(
      p.operands.length &&
      p.operands.every(
        (a) =>
          isKnown(a) && (scratchOrBuild(kit.path(c, a), c.scope.state.workspace) || workspaceFile(kit.path(c, a), c)),
      )
    )
  )
    kit.emit(c, 'dangerous', 'delete.force', `forced delete of ${what} (${label})`);
  else if (c.via === 'xargs')
    kit.emit(c, 'dangerous', 'delete.xargs', 'deletes the files named by its input (xargs rm)');
  else if (c.via === 'find') kit.emit(c, 'dangerous', 'delete.find', 'deletes every file find matches (find -exec rm)');
  // Handed on by xargs -I or find -exec into `sh -c`: the files named at run time are said.
  else if (p.operands.some((a) => a.value.includes(DESCRIBED))) {
    const from = p.operands.find((a) => a.value.includes(DESCRIBED))!;
    kit.emit(
      c,
      'dangerous',
      /find.matches/.test(from.value) ? 'delete.find' : 'delete.xargs',
      `deletes ${shown(from)} (rm)`,
    );
  }
};

/** Deleters that are recursive by nature. */
const treeDelete =
  (label: string): Rule =>
  (argv, c, kit) => {
    const ops = argv.slice(1).filter((a) => !a.value.startsWith('-'));
    if (deleteOperands(kit, c, ops, true, label)) return;
    const work = ops.filter((a) => !generated(kit, c, a));
    if (work.length === 0 && ops.length > 0) return;
    kit.emit(
      c,
      'dangerous',
      'delete.recursive',
      `recursive delete of ${list(work.map((a) => named(kit, c, a))) || 'its input'} (${label})`,
    );
  };

const unlink: Rule = (argv, c, kit) => {
  deleteOperands(kit, c, argv.slice(1), false, 'unlink');
  if (c.via) kit.emit(c, 'dangerous', 'delete.xargs', `deletes the files named by its input (${c.via} unlink)`);
};

const shred: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'ns', longValue: ['iterations', 'size', 'random-source'] });
  for (const op of p.operands) {
    if (kit.profileChange(c, op, 'shred')) return;
    if (isBlockDevice(kit.path(c, op)))
      return kit.emit(c, 'hardline', 'disk.wipe', `destroys the disk device ${kit.path(c, op)} (shred)`, op);
  }
  kit.emit(
    c,
    'dangerous',
    'delete.shred',
    `destroys the contents of ${list(p.operands.map((a) => named(kit, c, a)))} (shred)`,
  );
};

const findTests = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-wholename',
  '-regex',
  '-iregex',
  '-type',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-newer',
  '-size',
  '-user',
  '-group',
  '-perm',
  '-empty',
  '-links',
  '-inum',
  '-samefile',
  '-uid',
  '-gid',
  '-lname',
  '-nouser',
  '-nogroup',
]);
const findActions = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/**
 * What `{}` holds in a command find runs: with no test to filter them, find's matches begin with its start itself
 * (`-maxdepth 0`: only that), or are every file under it (`-mindepth 1`: `START/*`); otherwise which files it
 * matches is known only at run time, and the word says so.
 */
function matched(a: Arg, starts: Arg[], expr: Arg[], kit: RuleKit, c: CommandContext, where: string): Arg {
  if (!a.value.includes('{}')) return a;
  const depth = (name: string): number | undefined => {
    const i = expr.findIndex((e) => e.value === name);
    return i >= 0 ? Number(expr[i + 1]?.value) : undefined;
  };
  const start = starts.length <= 1 ? (starts[0] ?? { ...a, value: '.' }) : undefined;
  const filtered = expr.some((e) => findTests.has(e.value));
  if (start && isKnown(start) && !filtered) {
    const p = kit.path(c, start);
    const each = depth('-maxdepth') === 0 ? p : (depth('-mindepth') ?? 0) >= 1 ? `${p === '/' ? '' : p}/*` : p;
    return { ...a, value: a.value.replaceAll('{}', each) };
  }
  return { ...a, value: a.value.replaceAll('{}', unknownAs(`each file find matches under ${where}`)) };
}

/**
 * Does find match only generated output: every test is a -name/-iname/-type whose name is a well-known output name
 * (`-name '*.pyc'`, `-type d -name __pycache__`), nothing widens it (`-o`, `!`, `-path`), and it starts in the
 * workspace? Which files match is not looked up on the target: the names decide.
 */
function findsGenerated(kit: RuleKit, c: CommandContext, starts: Arg[], expr: Arg[]): boolean {
  const { workspace } = c.scope.state;
  if (workspace === undefined) return false;
  const names: string[] = [];
  for (let i = 0; i < expr.length; i++) {
    const v = expr[i]!.value;
    if (v === '-name' || v === '-iname') names.push(expr[++i]?.value ?? '');
    else if (v === '-type' || /^-(max|min)depth$/.test(v)) i++;
    else if (findTests.has(v) || /^(-o|-or|!|-not|,|-a|-and|\(|\))$/.test(v)) return false;
    else if (v === '-exec' || v === '-execdir' || v === '-delete' || v === '-prune') break;
  }
  const startsIn = (starts.length ? starts : [undefined]).every((s) => {
    const p = s ? kit.path(c, s) : c.scope.cwd;
    return s === undefined || (isKnown(s) && p !== undefined && inWorkspace(p, workspace));
  });
  return (
    startsIn &&
    names.length > 0 &&
    names.every((n) => /[^*?]/.test(n) && generatedName(n.replace(/[*?]/g, 'x').replace(/^x+\./, 'x.')))
  );
}

const find: Rule = (argv, c, kit) => {
  let i = 1;
  while (i < argv.length && /^-[HLP]$|^-D$|^-O\d*$/.test(argv[i]!.value)) i += argv[i]!.value === '-D' ? 2 : 1;
  const starts: Arg[] = [];
  while (i < argv.length && !/^[-(!,]/.test(argv[i]!.value)) starts.push(argv[i++]!);
  const expr = argv.slice(i);
  const filtered = expr.some((a) => findTests.has(a.value));
  const vitalStart = starts.find((s) => isKnown(s) && vitalPath(kit.path(c, s), c.scope.state.home));
  const where = list(starts.map((s) => named(kit, c, s))) || '.';
  // Deleting or running commands over what find matches in the profile changes it (or reads its token).
  if (
    expr.some((a) => a.value === '-delete' || findActions.has(a.value)) &&
    starts.some((s) =>
      kit.profileChange(c, s, `find ${expr.find((a) => a.value === '-delete' || findActions.has(a.value))!.value}`),
    )
  )
    return;
  // Output builds make again (`find . -name '*.pyc' -delete`) is deleted unasked.
  const outputOnly = findsGenerated(kit, c, starts, expr);
  for (let k = 0; k < expr.length; k++) {
    const v = expr[k]!.value;
    if (v === '-delete' && outputOnly) continue;
    if (v === '-delete') {
      if (vitalStart && !filtered)
        kit.emit(
          c,
          'hardline',
          'delete.vital',
          `recursive delete of ${kit.path(c, vitalStart)} (find -delete)`,
          expr[k],
        );
      else kit.emit(c, 'dangerous', 'delete.find', `deletes what find matches under ${where} (find -delete)`, expr[k]);
    } else if (findActions.has(v)) {
      let end = k + 1;
      while (end < expr.length && expr[end]!.value !== ';' && expr[end]!.value !== '+') end++;
      const cmd = expr.slice(k + 1, end);
      const name = cmd[0] && isKnown(cmd[0]) ? commandName(cmd[0].value) : '';
      if (outputOnly && /^(rm|rimraf|unlink|trash|trash-put)$/.test(name)) {
        k = end;
        continue;
      }
      if (vitalStart && !filtered && /^(rm|shred|unlink|rimraf)$/.test(name))
        kit.emit(
          c,
          'hardline',
          'delete.vital',
          `recursive delete of ${kit.path(c, vitalStart)} (find ${v} ${name})`,
          expr[k],
        );
      else if (vitalStart && !filtered && /^(chmod|chown|chgrp|chattr|setfacl)$/.test(name))
        kit.emit(
          c,
          'hardline',
          'chmod.vital',
          `recursive change of ${kit.path(c, vitalStart)} (find ${v} ${name})`,
          expr[k],
        );
      else if (cmd.length)
        kit.run(
          { ...c, via: 'find' },
          cmd.map((a) => matched(a, starts, expr, kit, c, where)),
        );
      k = end;
    } else if (/^-f(print0?|printf|ls)$/.test(v) && expr[k + 1]) {
      kit.write(c, expr[k + 1]!, `find ${v}`);
    }
  }
};

/** Does moving `p` away leave `dir` empty: `p` is `dir` or above it, or a glob naming every file in it (`*`, `.*`)? */
function emptiesDir(p: string, dir: string): boolean {
  if (p === dir || dir.startsWith(`${p}/`)) return true;
  return posix.dirname(p) === dir && /^[.*?[\]!]+$/.test(posix.basename(p)) && posix.basename(p).includes('*');
}

const mv: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'tS', longValue: ['target-directory', 'suffix', 'backup'] });
  const target = p.values.get('-t') ?? p.values.get('--target-directory');
  const sources = target !== undefined ? p.operands : p.operands.slice(0, -1);
  const dest = target !== undefined ? argv.find((a) => a.value === target) : p.operands[p.operands.length - 1];
  if (dest && kit.path(c, dest) === '/dev/null') {
    if (sources.some((a) => kit.profileChange(c, a, 'mv'))) return;
    return kit.emit(
      c,
      'dangerous',
      'delete.move',
      `deletes ${list(sources.map((a) => named(kit, c, a)))} by moving it to /dev/null (mv)`,
      dest,
    );
  }
  // Every file of the workspace, or the workspace itself, moved out of it empties it as `rm -rf ./*` would.
  const { workspace } = c.scope.state;
  const to = dest && isKnown(dest) ? kit.path(c, dest) : undefined;
  const all =
    workspace !== undefined && to !== undefined && !inWorkspace(to, workspace)
      ? sources.find((s) => isKnown(s) && emptiesDir(kit.path(c, s), workspace))
      : undefined;
  if (all && !vitalPath(kit.path(c, all), c.scope.state.home))
    kit.emit(
      c,
      'dangerous',
      'delete.move',
      `empties the workspace ${workspace}: moves ${shown(all)} to ${to} (mv)`,
      all,
    );
  for (const s of sources) {
    const sp = kit.path(c, s);
    // Moving `/`, a system directory or the home away breaks the system as surely as deleting it.
    if (isKnown(s) && vitalPath(sp, c.scope.state.home))
      kit.emit(c, 'hardline', 'delete.move', `moves ${sp} away (mv)`, s);
    else kit.write(c, s, 'mv');
  }
  if (dest) kit.write(c, dest, 'mv');
};

const rsync: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), {
    shortValue: 'eBfTM',
    longValue: ['rsh', 'exclude', 'include', 'filter', 'temp-dir', 'backup-dir', 'rsync-path'],
  });
  const deletes = [...p.flags].find((f) => f.startsWith('--delete') || f === '--remove-source-files' || f === '--del');
  const dest = p.operands[p.operands.length - 1];
  const local = dest && p.operands.length > 1 && !/^[^/]*:/.test(dest.value);
  const vital = local && isKnown(dest) && vitalPath(kit.path(c, dest), c.scope.state.home);
  // The remote shell (`-e CMD`) is a command rsync runs here.
  const rsh = p.values.get('-e') ?? p.values.get('--rsh');
  if (rsh !== undefined && isKnown(rsh)) kit.payload(c, rsh, argv.find((a) => a.value.endsWith(rsh)) ?? argv[0]!);
  // A dry run lists what it would do and changes nothing.
  if (hasAny(p, '-n', '--dry-run')) return;
  if (deletes && deletes !== '--remove-source-files' && vital)
    return kit.emit(
      c,
      'hardline',
      'delete.vital',
      `recursive delete of what is not in the source under ${kit.path(c, dest)} (rsync ${deletes})`,
      dest,
    );
  if (deletes)
    kit.emit(
      c,
      'dangerous',
      'delete.rsync',
      `deletes files ${deletes === '--remove-source-files' ? 'from the source' : 'missing from the source'} ` +
        `(rsync ${deletes})`,
    );
  if (vital) kit.emit(c, 'dangerous', 'write.vital', `copies a tree over ${kit.path(c, dest)} (rsync)`, dest);
  if (local) kit.write(c, dest, 'rsync');
};

/** `fd … -x CMD` / `-X CMD` runs CMD on every match, like find -exec. */
const fd: Rule = (argv, c, kit) => {
  const at = argv.findIndex((a) => /^(-x|-X|--exec|--exec-batch)$/.test(a.value));
  if (at > 0 && argv[at + 1]) kit.run({ ...c, via: 'find' }, argv.slice(at + 1));
};

export const deleteRules: Record<string, Rule> = {
  fd,
  fdfind: fd,
  rm,
  rimraf: treeDelete('rimraf'),
  'del-cli': treeDelete('del'),
  unlink,
  shred,
  srm: treeDelete('srm'),
  wipe: treeDelete('wipe'),
  find,
  gfind: find,
  mv,
  rsync,
};

export const deleteExamples: RuleExamples = {
  'delete.recursive': {
    match: [
      'rm -rf src',
      'rm -r ./data',
      'rimraf lib',
      'rm -rf ~/.cache',
      'rm -rf dist src',
      'rm -rf ../other/dist',
      // made earlier in the same command: not taken for output
      'ln -s ~ dist && rm -rf dist/',
    ],
    notMatch: [
      'rm notes.txt',
      'rm -f build/x.o',
      'rmdir empty',
      'rm -rf node_modules',
      'rm -rf dist build .pytest_cache',
      'rimraf dist',
      'rm -rf packages/*/dist',
    ],
  },
  'delete.force': { match: ['rm -f ~/notes.txt', 'rm -f *'], notMatch: ['rm -f notes.txt', 'rm -f build/app.o'] },
  'delete.vital': {
    match: ['rm -rf /', 'rm -rf ~', 'find / -delete', 'rsync -a --delete empty/ ~/', 'find ~ -exec rm -rf {} +'],
    notMatch: ['rm -rf ./home', 'find / -name x.log -delete'],
  },
  'delete.sensitive': { match: ['rm ~/.ssh/id_rsa', 'rm .env'], notMatch: ['rm .env.example'] },
  'delete.find': {
    match: ['find . -name "*.tmp" -delete', 'find src -exec rm {} +', "find . -name '*.pyc' -o -name '*.py' -delete"],
    notMatch: [
      'find . -name "*.ts"',
      'find . -name "*.md" -exec cat {} +',
      "find . -name '*.pyc' -delete",
      'find . -type d -name __pycache__ -exec rm -rf {} +',
    ],
  },
  'delete.xargs': { match: ['git ls-files | xargs rm', 'ls | xargs unlink'], notMatch: ['ls | xargs echo'] },
  'delete.move': {
    match: [
      'mv data.db /dev/null',
      'mv ~ /tmp/old-home',
      'mv /usr /usr.bak',
      'mv ./* ../elsewhere/',
      'mv ../project /tmp/x',
    ],
    notMatch: [
      'mv a.txt b.txt',
      'mv src/old.ts src/new.ts',
      'mv * archive/',
      'mv dist/* public/',
      'mv notes.txt /tmp/',
    ],
  },
  'delete.rsync': {
    match: ['rsync -a --delete src/ backup/'],
    notMatch: ['rsync -a src/ backup/', 'rsync -an --delete a/ b/'],
  },
  'delete.shred': { match: ['shred -u secrets.txt'] },
  'disk.wipe': { match: ['shred -n 3 /dev/sda'], notMatch: ['shred -u notes.txt'] },
  'write.vital': { match: ['rsync -a dotfiles/ ~/'], notMatch: ['rsync -a dotfiles/ backup/'] },
  'chmod.vital': { match: ['find / -exec chmod 777 {} +'], notMatch: ['find . -name "*.sh" -exec chmod +x {} +'] },
};
