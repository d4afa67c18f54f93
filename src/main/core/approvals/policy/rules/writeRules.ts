// Commands that write files named in their arguments (tee, cp, install, ln, sed -i, truncate, touch, sort -o), data
// clobber (emptying a file outside build output, overwriting one outside the workspace), archives extracted onto
// `/` or the home, and the shell builtins that change what later commands mean (cd, alias).
import { hasAny, parseOptions } from '../options.js';
import { clobberWhy, inWorkspace, isBlockDevice, profilePart, sensitiveWrite, vitalPath } from '../paths.js';
import { commandName, type Rule, type RuleExamples, type RuleKit } from '../ruleKit.js';
import { isKnown, shown, type Arg, type CommandContext, type Produces } from '../scanTypes.js';
import { passThrough } from './pipeRules.js';

/**
 * Data clobber: emptying a file (`> f`, `: > f`, `truncate -s 0`, `cp /dev/null f`, `dd of=f`) outside build output
 * and scratch, or overwriting one outside the workspace. Paths the write check already reported are left to it.
 */
export function clobber(kit: RuleKit, c: CommandContext, a: Arg, how: string, empties: boolean): void {
  const p = kit.path(c, a);
  if (sensitiveWrite(p) || isBlockDevice(p) || profilePart(p, c.scope.state.profile) || p === '/proc/sysrq-trigger')
    return;
  const why = clobberWhy(p, c.scope.state.workspace, empties);
  if (!why) return;
  const name = isKnown(a) ? p : shown(a);
  kit.emit(
    c,
    'dangerous',
    empties ? 'write.truncate' : 'write.outside',
    empties ? `empties ${name}, ${why} (${how})` : `overwrites ${name}, ${why} (${how})`,
    a,
  );
}

/** Does this command print without end (`yes`, `cat /dev/zero`), so that `cmd > f` fills the disk? */
export function printsForever(argv: Arg[]): boolean {
  const name = isKnown(argv[0]!) ? commandName(argv[0]!.value) : '';
  if (name === 'yes') return true;
  return /^(cat|tac|pv)$/.test(name) && argv.slice(1).some((a) => /^\/dev\/(zero|u?random)$/.test(a.value));
}

/** Does this command print nothing (or one newline), so that `cmd > f` only empties f? */
export function emptiesOutput(argv: Arg[], out: Produces | undefined): boolean {
  const name = isKnown(argv[0]!) ? commandName(argv[0]!.value) : '';
  if (name === ':' || name === 'true' || name === 'false') return true;
  if (/^(cat|head|tail|tac)$/.test(name) && argv.length === 2 && argv[1]!.value === '/dev/null') return true;
  return (name === 'echo' || name === 'printf') && (out?.text === '' || out?.text === '\n');
}

/** A recursive copy onto `/`, a system directory or the home replaces what is there (`cp -r evil/. ~/`). */
function treeOver(kit: RuleKit, c: CommandContext, dest: Arg, label: string): void {
  const p = kit.path(c, dest);
  const vital = isKnown(dest) && vitalPath(p, c.scope.state.home);
  if (vital) kit.emit(c, 'dangerous', 'write.vital', `copies a tree over ${p} (${label})`, dest);
}

const tee: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1));
  const empties = c.stdin?.file === '/dev/null' || c.stdin?.text === '';
  for (const f of p.operands) {
    kit.write(c, f, 'tee');
    if (!hasAny(p, '-a', '--append')) clobber(kit, c, f, 'tee', empties);
  }
  return passThrough()([argv[0]!], c, kit) ?? undefined;
};

/** cp, install, ln: the destination is the last operand or `-t DIR`. */
const copy =
  (label: string): Rule =>
  (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), {
      shortValue: label === 'install' ? 'tmogS' : 'tS',
      longValue: ['target-directory', 'suffix', 'mode', 'owner', 'group', 'backup'],
    });
    const t = p.values.get('-t') ?? p.values.get('--target-directory');
    const dest =
      t !== undefined
        ? argv.find((a) => a.value === t)
        : p.operands.length > 1
          ? p.operands[p.operands.length - 1]
          : undefined;
    const sources = p.operands.filter((o) => o !== dest);
    // Copying a project's template into its .env in the workspace (`cp .env.example .env`) is setup, not a secret
    // write.
    const fromTemplate =
      dest &&
      label === 'cp' &&
      inWorkspace(kit.path(c, dest), c.scope.state.workspace) &&
      /(^|\/)\.env[\w.-]*$/.test(dest.value) &&
      sources.length === 1 &&
      /\.(example|sample|template|dist|defaults)$/.test(sources[0]!.value);
    if (dest && !fromTemplate) kit.write(c, dest, label);
    if (dest && sources.some((o) => o.value === '/dev/null')) clobber(kit, c, dest, `${label} /dev/null`, true);
    else if (!dest && c.via && p.operands.some((o) => o.value === '/dev/null'))
      kit.emit(c, 'dangerous', 'write.truncate', `empties the files named by its input (${c.via} ${label} /dev/null)`);
    if (dest && label !== 'ln' && hasAny(p, '-r', '-R', '-a', '--recursive', '--archive'))
      treeOver(kit, c, dest, `${label} -r`);
    // A link to the profile is a second name for it, under which every later write would pass.
    if (label === 'ln') for (const src of p.operands) if (src !== dest) kit.profileChange(c, src, 'ln');
  };

/** GNU sed runs shell from a script: the `e` command and the `e` flag of `s`; `w FILE` writes a file. */
function sedScript(script: string, c: CommandContext, kit: RuleKit, at: Arg): void {
  const address = String.raw`(?:\d+|\$|/(?:[^/\\]|\\.)*/)`;
  const cmd = new RegExp(
    String.raw`(?:^|[;\n{])\s*(?:${address}\s*(?:,\s*${address})?)?\s*!?\s*e(?:[ \t]+([^;\n}]*))?\s*(?=$|[;\n}])`,
    'g',
  );
  for (const m of script.matchAll(cmd)) {
    if (m[1]?.trim()) kit.payload(c, m[1].trim(), at);
    else kit.emit(c, 'dangerous', 'sed.exec', 'runs lines of its input as shell commands (sed e)', at);
  }
  for (const m of script.matchAll(
    /(?:^|[;\n{])\s*s(.)(?:(?!\1)[^\\]|\\.)*\1(?:(?!\1)[^\\]|\\.)*\1([gpiImM0-9e]*)(w\s+\S+)?/g,
  )) {
    if (m[2]!.includes('e'))
      kit.emit(c, 'dangerous', 'sed.exec', 'runs each substituted line as a shell command (sed s///e)', at);
  }
  for (const m of script.matchAll(/(?:^|[;\n{}/0-9$])\s*[wW]\s+(\S+)/g)) kit.write(c, { ...at, value: m[1]! }, 'sed w');
}

const sed: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'efl', longValue: ['expression', 'file', 'line-length'] });
  const scripts = argv.flatMap((a, i) =>
    /^(-e|--expression)$/.test(argv[i - 1]?.value ?? '')
      ? [a]
      : /^--expression=/.test(a.value)
        ? [{ ...a, value: a.value.slice(13) }]
        : [],
  );
  if (!p.values.has('-e') && !p.values.has('--expression') && !p.values.has('-f') && p.operands[0])
    scripts.push(p.operands[0]);
  for (const s of scripts) if (isKnown(s)) sedScript(s.value, c, kit, s);
  const blanks = scripts.some((s) => isKnown(s) && /^\s*((1\s*,\s*\$\s*)?d|s(.)\^?\.\*\$?\3\3g?)\s*$/.test(s.value));
  const inPlace =
    [...p.flags].some((f) => f === '-i' || f.startsWith('--in-place')) ||
    argv.some((a) => /^-[a-zA-Z]*i/.test(a.value));
  if (!inPlace) return;
  const files =
    p.values.has('-e') || p.values.has('-f') || p.values.has('--expression') ? p.operands : p.operands.slice(1);
  for (const f of files) {
    kit.write(c, f, 'sed -i');
    if (blanks) clobber(kit, c, f, 'sed -i', true);
  }
};

const writesOperands =
  (label: string, spec: { shortValue?: string; longValue?: string[] } = {}): Rule =>
  (argv, c, kit) => {
    for (const f of parseOptions(argv.slice(1), spec).operands) kit.write(c, f, label);
  };

/** `truncate -s 0` (or a shrinking size: -N, <N, /N, %N; or one taken from another file) empties what it names. */
const truncate: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'sr', longValue: ['size', 'reference'] });
  const size = p.values.get('-s') ?? p.values.get('--size');
  const shrinks = size === undefined || !isKnown(size) || /^(0+[KMGTPEZY]?i?B?|[-</%].*)$/i.test(size);
  for (const f of p.operands) {
    kit.write(c, f, 'truncate');
    if (shrinks) clobber(kit, c, f, `truncate${size !== undefined ? ` -s ${size}` : ''}`, true);
  }
};

/** mkdir asks nowhere, but a directory made in the profile (plugins/evil) is a change to it. */
const mkdir: Rule = (argv, c, kit) => {
  for (const f of parseOptions(argv.slice(1), { shortValue: 'mZ', longValue: ['mode', 'context'] }).operands)
    kit.profileChange(c, f, 'mkdir');
};

/**
 * An editor run on files (`nano config.yaml`): asks nowhere, but a file it names in the profile is a change to it.
 * Editors' options differ from one to the next: every word not an option may be a file.
 */
const editor =
  (label: string): Rule =>
  (argv, c, kit) => {
    for (const f of argv.slice(1)) if (!f.value.startsWith('-')) kit.profileChange(c, f, label);
  };

/**
 * Extracting an archive onto `/`, a system directory or the home (by `-C`/`-d`, or by the cwd) overwrites what is
 * there: dotfiles, binaries, configuration. So do absolute member names (`tar -P`).
 */
function extractsOnto(kit: RuleKit, c: CommandContext, dir: Arg | undefined, label: string): void {
  if (dir && kit.profileChange(c, dir, label)) return;
  const p = dir ? kit.path(c, dir) : c.scope.cwd;
  if (p === undefined || (dir && !isKnown(dir))) return;
  const why = vitalPath(p, c.scope.state.home) ? 'overwrites what is there' : sensitiveWrite(p);
  if (why) kit.emit(c, 'dangerous', 'extract.vital', `extracts an archive onto ${p}: ${why} (${label})`, dir);
}

const mPattern = new RegExp(
  '^(?:--to-command=|--checkpoint-action=exec=|--use-compress-program=|--info-script=|' +
    String.raw`--new-volume-script=)([\s\S]+)$`,
);

const tar: Rule = (argv, c, kit) => {
  const args = argv.slice(1);
  // Options that name a program tar runs (`--to-command`, `--checkpoint-action=exec=`, `-I`) are shell text.
  args.forEach((a, i) => {
    const m = mPattern.exec(a.value);
    const prog = m
      ? { ...a, value: m[1]! }
      : /^(-I|--to-command|--use-compress-program|-F|--info-script)$/.test(a.value)
        ? args[i + 1]
        : undefined;
    if (prog && isKnown(prog)) kit.payload(c, prog.value, prog);
  });
  const extracts = args.some(
    (a, i) =>
      a.value === '-x' ||
      a.value === '--extract' ||
      a.value === '--get' ||
      (/^-?[a-zA-Z]+$/.test(a.value) &&
        (i === 0 || a.value.startsWith('-')) &&
        /x/.test(a.value.replace(/^-/, '')) &&
        !a.value.startsWith('--')),
  );
  if (!extracts) return;
  let dir: Arg | undefined;
  args.forEach((a, i) => {
    const d =
      a.value === '-C' || a.value === '--directory'
        ? args[i + 1]
        : /^--directory=/.test(a.value)
          ? { ...a, value: a.value.slice('--directory='.length) }
          : undefined;
    if (d) dir = d;
  });
  const absolute = args.find(
    (a) =>
      a.value === '--absolute-names' ||
      (/^-[a-zA-Z]+$/.test(a.value) && a.value.includes('P')) ||
      (/^[a-zA-Z]+$/.test(a.value) && a === args[0] && a.value.includes('P')),
  );
  if (absolute)
    kit.emit(
      c,
      'dangerous',
      'extract.vital',
      'extracts members to the absolute paths stored in the archive (tar -P)',
      absolute,
    );
  extractsOnto(kit, c, dir, 'tar -x');
};

const unzip: Rule = (argv, c, kit) => {
  const at = argv.findIndex((a) => a.value === '-d');
  const joined = argv.find((a) => /^-d./.test(a.value));
  const dir = at > 0 ? argv[at + 1] : joined ? { ...joined, value: joined.value.slice(2) } : undefined;
  if (argv.slice(1).some((a) => /^-[a-zA-Z]*[lvtZ]/.test(a.value))) return;
  extractsOnto(kit, c, dir, dir ? 'unzip -d' : 'unzip');
};

/** 7z x/e writes where `-oDIR` says. */
const sevenZip: Rule = (argv, c, kit) => {
  if (!/^(x|e)$/.test(argv[1]?.value ?? '')) return;
  const out = argv.find((a) => /^-o./.test(a.value));
  extractsOnto(kit, c, out ? { ...out, value: out.value.slice(2) } : undefined, `7z ${argv[1]!.value}`);
};

const cpio: Rule = (argv, c, kit) => {
  if (argv.slice(1).some((a) => /^(-[a-zA-Z]*i[a-zA-Z]*|--extract)$/.test(a.value)))
    extractsOnto(kit, c, undefined, 'cpio -i');
};

const cd: Rule = (argv, c, kit) => {
  const target = argv.slice(1).find((a) => !a.value.startsWith('-') || a.value === '-');
  if (!target) c.scope.cwd = c.scope.state.home;
  else c.scope.cwd = isKnown(target) && target.value !== '-' ? kit.path(c, target) : undefined;
};

const alias: Rule = (argv, c, kit) => {
  for (const a of argv.slice(1)) {
    const m = /^[^=]+=([\s\S]*)$/.exec(a.value);
    if (m && isKnown(a)) kit.payload(c, m[1]!, a);
  }
};

/** Writers of an output file named by an option or operand: `sort -o F`, `sponge F`, `uniq IN OUT`. */
const outputFile =
  (label: string, pick: (argv: Arg[]) => Arg | undefined): Rule =>
  (argv, c, kit) => {
    const f = pick(argv);
    if (!f) return;
    kit.write(c, f, label);
    clobber(kit, c, f, label, false);
  };

export const writeRules: Record<string, Rule> = {
  sort: outputFile('sort -o', (argv) => {
    const i = argv.findIndex((a) => a.value === '-o' || a.value === '--output');
    const j = argv.find((a) => /^(-o.|--output=)/.test(a.value));
    return i > 0 ? argv[i + 1] : j ? { ...j, value: j.value.replace(/^(-o|--output=)/, '') } : undefined;
  }),
  uniq: outputFile('uniq', (argv) => {
    const ops = argv.slice(1).filter((a) => !a.value.startsWith('-'));
    return ops.length === 2 ? ops[1] : undefined;
  }),
  tee,
  cp: copy('cp'),
  install: copy('install'),
  ln: copy('ln'),
  gcp: copy('cp'),
  sed,
  gsed: sed,
  truncate,
  touch: writesOperands('touch', { shortValue: 'dtr', longValue: ['date', 'reference'] }),
  mkdir,
  tar,
  gtar: tar,
  bsdtar: tar,
  unzip,
  '7z': sevenZip,
  '7za': sevenZip,
  '7zz': sevenZip,
  cpio,
  // ed, ex, vi, vim, nvim and emacs are escapeRules': they read the editor's own commands and check the same files.
  ...Object.fromEntries(['nano', 'pico', 'micro', 'joe'].map((e) => [e, editor(e)])),
  sponge: (argv, c, kit) => {
    for (const f of argv.slice(1))
      if (!f.value.startsWith('-')) {
        kit.write(c, f, 'sponge');
        if (!argv.some((a) => a.value === '-a')) clobber(kit, c, f, 'sponge', false);
      }
  },
  cd,
  pushd: cd,
  alias,
};

export const writeExamples: RuleExamples = {
  'write.truncate': {
    match: [': > src/main.ts', 'truncate -s 0 data.db', 'cp /dev/null notes.txt'],
    notMatch: [': > build.log', 'truncate -s 0 out/app.log'],
  },
  'write.outside': {
    match: ['echo x > ~/other/notes.txt', 'sort -o /home/agent/list.txt list.txt'],
    notMatch: ['echo x > notes.txt', 'sort -o sorted.txt list.txt'],
  },
  'write.vital': { match: ['cp -r dotfiles/. ~/'], notMatch: ['cp -r templates/base src/page'] },
  'write.sensitive': {
    match: ['echo x >> ~/.bashrc', 'tee -a ~/.ssh/authorized_keys < key.pub'],
    notMatch: ['cp .env.example .env', 'echo x > .env.example'],
  },
  'sed.exec': { match: ["sed 's/.*/echo &/e' cmds.txt"], notMatch: ["sed -i 's/a/b/g' src/x.ts"] },
  'extract.vital': {
    match: ['tar -xzf dotfiles.tgz -C ~', 'tar -xPf backup.tar'],
    notMatch: ['tar -xzf app.tgz -C build'],
  },
};
