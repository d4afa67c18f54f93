// The interface rules are written against: report a finding, scan nested shell text, run a nested argv.
import type { CodeParsers } from './code/codeParsers.js';
import type { Arg, CommandContext, Finding, Produces } from './scanTypes.js';
import type { RuleId } from './ruleIds.js';
import type { ScriptLanguage } from './runFiles.js';

export interface RuleKit {
  /** The Python and JavaScript grammars, for `python -c` and `node -e` payloads; absent, code is read as text. */
  readonly codeParsers?: CodeParsers;
  /** Report a finding; `at` narrows the span to one argument, else the whole command is flagged. */
  emit(c: CommandContext, severity: Finding['severity'], rule: RuleId, text: string, at?: Arg): void;
  /**
   * Classify shell text found inside the command (`bash -c '…'`, `eval …`, `ssh host '…'`); `positional` are `$0`,
   * `$1` … it is run with (`sh -c '…' NAME ARG…`).
   */
  payload(c: CommandContext, text: string, at: Arg, positional?: Arg[]): void;
  /** Classify an argv the command will run (`find -exec …`, `xargs …`). */
  run(c: CommandContext, argv: Arg[]): Produces | undefined;
  /** An argument as an absolute path (cwd and home applied where known). */
  path(c: CommandContext, a: Arg): string;
  /** Flag a write to `a` if it is a device, kernel trigger or sensitive file. */
  write(c: CommandContext, a: Arg, how: string): void;
  /** Refuse a change to `a` (write, delete, mode, link) when it is in the Switchboard profile; true when it is. */
  profileChange(c: CommandContext, a: Arg, how: string): boolean;
  /** Whether a program name is a wrapper that runs the command after it (`sudo`, `timeout`, `nice`). */
  isWrapper(name: string): boolean;
  /** Judge a file the command runs by its content on the target (`bash F`, `python3 F`); `label` names how it runs. */
  runsFile(c: CommandContext, file: Arg, language: ScriptLanguage | 'auto', label: string): void;
  /** What a process substitution or `$(…)` inside this argument produces, if it was seen. */
  produced(c: CommandContext, a: Arg): Produces | undefined;
}

/** A rule reads one command's argv (argv[0] is the command as written) and reports what it finds. */
export type Rule = (argv: Arg[], c: CommandContext, kit: RuleKit) => Produces | void;

/** A wrapper returns the command it runs (`sudo rm …` → `rm …`), or undefined when it runs none. */
export type Wrapper = (argv: Arg[], c: CommandContext, kit: RuleKit) => { argv: Arg[]; c?: CommandContext } | undefined;

/**
 * A rule's own examples, kept beside it (STYLE §15): commands that must give a finding with the rule id, and near
 * misses that must not. One test runs them all by rule id (ruleExamples.test.ts), in a project workspace:
 * home /home/agent, cwd /home/agent/project, the Switchboard profile at /home/agent/.switchboard.
 */
export interface RuleExample {
  match: string[];
  notMatch?: string[];
}

/** Examples by the rule id they show; a rule file exports the ones of its rules. */
export type RuleExamples = Partial<Record<RuleId, RuleExample>>;

/** Names already worked out: every rule asks for its command's, most commands are a few dozen words. */
const commandNames = new Map<string, string>();

/** `/usr/bin/rm`, `RM.exe`, `"rm"` → `rm`. */
export function commandName(value: string): string {
  let name = commandNames.get(value);
  if (name === undefined) {
    name = value
      .slice(value.lastIndexOf('/') + 1)
      .toLowerCase()
      .replace(/\.exe$/, '');
    if (commandNames.size >= 4096) commandNames.clear();
    commandNames.set(value, name);
  }
  return name;
}
