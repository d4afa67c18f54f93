// Commands that write files named in their arguments (tee, cp, install, ln, sed -i, truncate, touch), and
// the shell builtins that change what later commands mean (cd, alias).
import { parseOptions } from '../options.js';
import type { Rule } from '../ruleKit.js';
import { isKnown } from '../scanTypes.js';
import { passThrough } from './remoteCodeRules.js';

const tee: Rule = (argv, c, kit) => {
  for (const f of parseOptions(argv.slice(1)).operands) kit.write(c, f, 'tee');
  return passThrough()([argv[0]!], c, kit) ?? undefined;
};

/** cp, install, ln: the destination is the last operand or `-t DIR`. */
const copy = (label: string): Rule => (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: label === 'install' ? 'tmogS' : 'tS', longValue: ['target-directory', 'suffix', 'mode', 'owner', 'group', 'backup'] });
  const t = p.values.get('-t') ?? p.values.get('--target-directory');
  const dest = t !== undefined ? argv.find((a) => a.value === t) : p.operands.length > 1 ? p.operands[p.operands.length - 1] : undefined;
  if (dest) kit.write(c, dest, label);
  // A link to the profile is a second name for it, under which every later write would pass.
  if (label === 'ln') for (const src of p.operands) if (src !== dest) kit.profileChange(c, src, 'ln');
};

const sed: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'efl', longValue: ['expression', 'file', 'line-length'] });
  const inPlace = [...p.flags].some((f) => f === '-i' || f.startsWith('--in-place')) || argv.some((a) => /^-[a-zA-Z]*i/.test(a.value));
  if (!inPlace) return;
  const files = p.values.has('-e') || p.values.has('-f') || p.values.has('--expression') ? p.operands : p.operands.slice(1);
  for (const f of files) kit.write(c, f, 'sed -i');
};

const writesOperands = (label: string, spec: { shortValue?: string; longValue?: string[] } = {}): Rule => (argv, c, kit) => {
  for (const f of parseOptions(argv.slice(1), spec).operands) kit.write(c, f, label);
};

/** mkdir asks nowhere, but a directory made in the profile (plugins/evil) is a change to it. */
const mkdir: Rule = (argv, c, kit) => {
  for (const f of parseOptions(argv.slice(1), { shortValue: 'mZ', longValue: ['mode', 'context'] }).operands) kit.profileChange(c, f, 'mkdir');
};

/**
 * An editor run with a script (`ed -s config.yaml <<< …`, `vim -es`), or sponge: asks nowhere, but a file it names
 * in the profile is a change to it. Editors' options differ from one to the next: every word not an option may be a file.
 */
const editor = (label: string): Rule => (argv, c, kit) => {
  for (const f of argv.slice(1)) if (!f.value.startsWith('-')) kit.profileChange(c, f, label);
};

/** Extracting an archive writes where `-C DIR` (tar) or `-d DIR` (unzip) says. */
const tar: Rule = (argv, c, kit) => {
  const args = argv.slice(1);
  const extracts = args.some((a, i) => a.value === '-x' || a.value === '--extract' || a.value === '--get' || (/^-?[a-zA-Z]+$/.test(a.value) && (i === 0 || a.value.startsWith('-')) && /x/.test(a.value.replace(/^-/, '')) && !a.value.startsWith('--')));
  if (!extracts) return;
  args.forEach((a, i) => {
    const dir = a.value === '-C' || a.value === '--directory' ? args[i + 1] : /^--directory=/.test(a.value) ? { ...a, value: a.value.slice('--directory='.length) } : undefined;
    if (dir) kit.profileChange(c, dir, 'tar -x');
  });
};

const unzip: Rule = (argv, c, kit) => {
  const at = argv.findIndex((a) => a.value === '-d');
  if (at > 0 && argv[at + 1]) kit.profileChange(c, argv[at + 1]!, 'unzip -d');
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

export const writeRules: Record<string, Rule> = {
  tee,
  cp: copy('cp'), install: copy('install'), ln: copy('ln'), gcp: copy('cp'),
  sed, gsed: sed,
  truncate: writesOperands('truncate', { shortValue: 'sr', longValue: ['size', 'reference'] }),
  touch: writesOperands('touch', { shortValue: 'dtr', longValue: ['date', 'reference'] }),
  mkdir,
  tar, gtar: tar, bsdtar: tar, unzip,
  ...Object.fromEntries(['ed', 'ex', 'vi', 'vim', 'nvim', 'nano', 'emacs', 'pico', 'micro', 'joe', 'sponge'].map((e) => [e, editor(e)])),
  cd, pushd: cd,
  alias,
};
