// What the shell scanner and its rules share: findings, evaluated arguments, and the state of one scan.
import type { PolicyVerdict } from '../../../../shared/approvals.js';
import type { RuleId } from './ruleIds.js';
import type { ProbeFacts, ProbeNeeds } from './probeFacts.js';

/** A finding is a reason with a severity; the verdict is the worst severity found. */
export interface Finding {
  severity: Exclude<PolicyVerdict, 'safe'>;
  rule: RuleId;
  text: string;
  span?: [number, number];
}

/** Marks a part of a word the scanner cannot know before run time (`$x`, `$(…)`). */
export const UNKNOWN = '\uE000';

/** Brackets, after UNKNOWN, what a run-time value will be, in words for reasons (`each line of its input`). */
export const DESCRIBED = '\uE006';

/** A value known only at run time, that reasons name by what it will hold. */
export function unknownAs(what: string): string {
  // No blank in it: a word it is put in stays one word (no-break spaces read as spaces).
  return `${UNKNOWN}${DESCRIBED}${what.replace(/ /g, '\u00a0')}${DESCRIBED}`;
}

/** Is every run-time part of this value described (so the text around it can be read)? */
export function describedOnly(value: string): boolean {
  return !value.replace(/\uE000\uE006[^\uE006]*\uE006/g, '').includes(UNKNOWN);
}

/** Separates the words of `$@` in a variable's value: `"$@"` is each of them, as separate words. */
export const ARGS_SEP = '\uE005';

/** One argument after quoting, escapes and known variables were resolved. */
export interface Arg {
  /** The value bash would pass, with UNKNOWN where it depends on run time. */
  value: string;
  /** The argument as written (for reasons when the value is not known). */
  source: string;
  /** Offsets in the scanned text. */
  start: number;
  end: number;
}

/** What a pipeline stage hands to the next one, as far as the scanner can tell. */
export interface Produces {
  fetched?: boolean;
  decoded?: boolean;
  /** The exact text, when it is built from literals (echo, printf, here-strings, decoded literals). */
  text?: string;
  /** Which program fetched or decoded it, for the reason text. */
  by?: string;
  /** Where fetched text came from (a URL's host), for the reason text. */
  from?: string;
  /** The file fed to stdin with `< file`. */
  file?: string;
  /** Secret data the text carries (the environment, a key, a .env file, a dump), as reasons name it when it leaves. */
  secret?: string;
}

/** State shared by every level of one classification (nested `bash -c` payloads included). */
export interface ScanState {
  home: string;
  /** The cwd the command starts in: writes inside it are the agent's own work. */
  workspace?: string;
  /**
   * The Switchboard profile (absolute, normalised), which no command may change and whose token no command may read.
   */
  profile?: string;
  findings: Finding[];
  /** Files written by a download earlier in the same command. */
  downloaded: Set<string>;
  /** Files written with known text earlier in the same command (`echo 'rm -rf /' > x.sh`). */
  written: Map<string, string>;
  /** Files made executable earlier in the same command. */
  madeExecutable: Set<string>;
  /** Files written earlier in the same command, whatever with (cp, ln, a redirect): a look before it ran is stale. */
  changed?: Set<string>;
  /** An earlier part of the same command changed git config (`git config k v`): a look before it ran is stale. */
  gitConfigChanged?: boolean;
  /** How many nodes were visited; a bound against hostile input. */
  budget: number;
  parseFailed?: string;
  /**
   * What the target said about links, run files and git (absent: nothing is looked up and paths read as written).
   * `needs` collects what a scan wanted to look up, answered or not.
   */
  facts?: ProbeFacts;
  needs?: ProbeNeeds;
  /**
   * The target's agent work runs unsandboxed on this machine: nothing but this judgement stands between a write and
   * the profile or the person's start-up files, so a write to a path built only as it runs asks.
   */
  unsandboxed?: boolean;
  /**
   * Where an earlier part of the same command chose that later ones act (`terraform workspace select prod`,
   * `kubectl config use-context prod-eu`), as the variable that says the same (TF_WORKSPACE, KUBECONTEXT).
   */
  chosen?: Map<string, string>;
}

/** A shell function the command defines: its body, and whether a call of it was judged with its arguments. */
export interface FunctionDef {
  body: import('./shellParser.js').ShellNode;
  called: boolean;
  /** Where the body's offsets point in the original command (the defining text's). */
  span: ScanScope['span'];
}

/** One level of scanning: a text, its position in the original, and what is known there. */
export interface ScanScope {
  state: ScanState;
  cwd: string | undefined;
  vars: Map<string, string>;
  /** Shell functions defined so far in this shell (shared by eval'd and nested text), by name. */
  functions?: Map<string, FunctionDef>;
  /** Functions being judged now, so that a function calling itself is judged once. */
  calling?: ReadonlySet<string>;
  /** Functions this level's text defines: those it never calls are judged once, with no arguments, at its end. */
  defined?: FunctionDef[];
  depth: number;
  /** Where this level's text comes from when it is not the command (a script, a hook, git config): said in reasons. */
  origin?: string;
  /** Maps an offset in this level's text to the original command, or pins every span to one place. */
  span(start: number, end: number): [number, number] | undefined;
}

/** What a make command asks for: its goals (none: the first target) and `VAR=value` words, which win over the file. */
export interface MakeCall {
  targets: string[];
  overrides: Record<string, string>;
}

/** How a command was reached: rules judge `rm` under `xargs` or `find -exec` differently. */
export interface CommandContext {
  scope: ScanScope;
  /** The span of the whole simple command. */
  at: [number, number] | undefined;
  via?: 'xargs' | 'find';
  stdin?: Produces;
  /** Whether what the command prints feeds another (a pipe, `$(…)`): only then is its output judged for secrets. */
  consumed?: boolean;
  /** Variables assigned for this command alone: `RAILS_ENV=test rails …`, `env NODE_ENV=production …`. */
  env?: ReadonlyMap<string, string>;
  /** True when a wrapper already asked for root (sudo, doas, su). */
  elevated?: boolean;
  /**
   * How the command treats a path's last link: follows it (writes, chmod), acts on the link itself (rm, mv), or only
   * names it (cd: what is under it is looked up by the later command). Default: follow.
   */
  links?: 'follow' | 'own' | 'name';
  /** For a Makefile make runs: the goals and overrides of the make command. */
  make?: MakeCall;
}

export function isKnown(a: Arg | string): boolean {
  return !(typeof a === 'string' ? a : a.value).includes(UNKNOWN);
}

/** How an argument reads in a reason: its value if known, else what was written. */
export function shown(a: Arg): string {
  if (isKnown(a)) return a.value;
  if (a.value.includes(DESCRIBED)) return describe(a.value);
  return a.source.replace(/^"([\s\S]*)"$/, '$1');
}

/** A value with described run-time parts, in words: `/srv/` + `each line of its input`. */
export function describe(value: string): string {
  return value
    .replace(/\uE000\uE006([^\uE006]*)\uE006/g, (_, what: string) => what.replace(/\u00a0/g, ' '))
    .replaceAll(UNKNOWN, '…');
}

/** What a scan may be given besides the text: the target's home, cwd, profile, probed facts, and a shell's state. */
export interface ScanOptions {
  home: string;
  cwd?: string;
  profile?: string;
  facts?: ProbeFacts;
  /** Filled with what the scan wanted to look up on the target. */
  needs?: ProbeNeeds;
  /** A long-lived shell's variables and cwd (a background shell's stdin): read, and changed by what the text does. */
  session?: { vars: Map<string, string>; cwd?: string };
  /** See ScanState.unsandboxed. */
  unsandboxed?: boolean;
}

/**
 * Variables with the positional parameters bound: `$0` (when given), `$1` … `$9`, and `$@`/`$*`, each known or, when
 * known only at run time, unset (or described, when what it will hold can be said).
 */
export function withPositional(vars: ReadonlyMap<string, string>, args: Arg[], zero?: string): Map<string, string> {
  const out = new Map(vars);
  for (const k of ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '@', '*', '#']) out.delete(k);
  if (zero !== undefined && (isKnown(zero) || zero.includes(DESCRIBED))) out.set('0', zero);
  args.slice(0, 9).forEach((a, i) => {
    if (isKnown(a) || a.value.includes(DESCRIBED)) out.set(String(i + 1), a.value);
  });
  out.set('#', String(args.length));
  if (args.every((a) => isKnown(a) || a.value.includes(DESCRIBED)))
    out.set('@', args.map((a) => a.value).join(ARGS_SEP));
  return out;
}

/** What two substitutions in one argument produce together (`$(curl …)$(base64 -d …)`). */
export function mergeProduces(a: Produces | undefined, b: Produces): Produces {
  if (!a) return b;
  const secret = a.secret ?? b.secret;
  const from = a.from ?? b.from;
  return {
    fetched: a.fetched || b.fetched,
    decoded: a.decoded || b.decoded,
    by: a.by ?? b.by,
    ...(secret !== undefined ? { secret } : {}),
    ...(from !== undefined ? { from } : {}),
  };
}
