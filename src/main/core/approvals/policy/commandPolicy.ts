// The approvals policy engine: classifies a tool call as hardline / dangerous / safe, with every reason a short
// sentence, and decides refuse / ask / allow under the approvals mode and the target's flags. Pure: it runs
// nothing and reads no file; the one asynchronous step is loading the bash grammar.
// Over 380 lines: one engine whose classify and decide steps share the judgement and its context; its rules,
// scanner and paths are files of their own.
//
// API
//   const policy = await loadCommandPolicy({ profile }); // once per process: it compiles the grammars
//   policy.classify({ tool: 'terminal', command }, ctx)  // → { verdict, reasons: [{ text, rule, severity, span? }],
// decision }
//   policy.classify({ tool: 'write_file' | 'patch', path }, ctx)
//   policy.classify({ tool: 'execute_code', code }, ctx)
//   policy.commandPattern(command)                      // normalised text for "always allow" rules
//   decide(verdict, reasons, ctx)                       // the mode/flags step alone
// ctx: { home?: target's home ('~' when unknown), cwd?, mode?: 'ask'|'deny'|'off' (default ask),
//        flags?: { skip_container_guards } }. Spans are [start, end) offsets into the command as given.
// profile: the Switchboard profile ($SWITCHBOARD_HOME, absolute). Changing anything in it, or reading the file that
// holds the agent token, is hardline whatever the target: config and rules change only through a person.
// Decision: hardline → refuse in every mode; dangerous → ask, refuse under `deny`, allow under `off` or with
// `skip_container_guards` — except reasons that reach outside a container (another docker daemon, the cloud
// metadata endpoint), which still ask there, and text too long to read (over MAX_JUDGED_CHARS, or past the walk's
// node budget), which asks under `ask` and is refused otherwise; safe → allow.
//
// Parser: tree-sitter-bash through web-tree-sitter (WASM). Chosen over sh-syntax (mvdan/sh as Go→WASM) because
// sh-syntax starts a fresh Go WASM instance per call (many times tree-sitter's parse) and its JSON AST drops node types
// (`Cmd` comes back as bare positions), so it cannot be walked; tree-sitter-bash parses in well under 1 ms,
// gives a typed tree with fields, recovers from errors (we ask on any ERROR node), and ships its .wasm inside
// the npm package, so nothing runs at install time (no native build, no install script).
// Everything the walker does not model reads as unknown and asks: "command name computed at run time".
// Code (execute_code's Python, `python3 -c`, `node -e`) is read on its own syntax tree, with tree-sitter-python
// and tree-sitter-javascript loaded beside bash (codeRules.ts, code/); the shell commands it runs come back here.
// With `codeGrammars: 'when needed'` those two load at the first judgement that meets code in their language: that
// judgement asks (code.unchecked) and names them in `grammars`; its caller loads them and judges again (judgeLoaded).
import { createHash } from 'node:crypto';
import type {
  ApprovalsMode,
  PolicyClassification,
  PolicyDecision,
  PolicyReason,
  PolicyVerdict,
} from '../../../../shared/approvals.js';
import type { ApprovalSubject } from '../../../../shared/tools.js';
import { loadCodeParsers, loadGrammars, type CodeParsers, type ParsedLanguage } from './code/codeParsers.js';
import { codeFindings } from './codeRules.js';
import { commandPattern } from './commandPattern.js';
import { isBlockDevice, profileFinding, resolvePath, sensitiveWrite } from './paths.js';
import { ShellScanner } from './shellScanner.js';
import { loadShellParser, type ShellParser } from './shellParser.js';
import type { Finding } from './scanTypes.js';
import { emptyNeeds, needCount, type ProbeFacts, type ProbeNeeds } from './probeFacts.js';
import { sqlFindings } from './rules/sqlRules.js';
import type { RuleId } from './ruleIds.js';

/**
 * What is judged: the subject a tool's declaration hands over (ToolDef.approval), never a tool name, so a new
 * tool is covered by saying what it runs or writes. `via` names the tool in reason texts only.
 */
export type PolicyCall = ApprovalSubject & { via?: string };

export interface PolicyContext {
  /** The target's home directory; `~` (the default) when it is not known. */
  home?: string;
  cwd?: string;
  mode?: ApprovalsMode;
  flags?: { skip_container_guards?: boolean };
  /** The target's agent work runs unsandboxed on this machine (a write to a path built as it runs then asks). */
  unsandboxed?: boolean;
}

/** What the approval step adds: facts probed on the target, and a long-lived shell's state for its stdin. */
export interface JudgeContext extends PolicyContext {
  facts?: ProbeFacts;
  /** A background shell's variables and cwd, read and changed by the input judged (the caller keeps it per process). */
  session?: { vars: Map<string, string>; cwd?: string };
}

/** A classification, with what the scan would have liked to look up on the target (none answered: judge again). */
export interface Judgement extends PolicyClassification {
  needs: ProbeNeeds;
  /** Shell input that does not parse yet (a `for … do` still open): the shell waits for more before it runs it. */
  unfinished?: boolean;
  /**
   * Languages of code it holds whose grammar was not loaded: that code was not read on its syntax tree, and asks.
   * Load them (CommandPolicy.loadGrammars) and judge again; judgeLoaded does both.
   */
  grammars?: ParsedLanguage[];
}

export interface CommandPolicy {
  classify(call: PolicyCall, ctx?: PolicyContext): PolicyClassification;
  /** classify, told what the target holds (links, run files, git), and saying what else it wants to know. */
  judge(call: PolicyCall, ctx?: JudgeContext): Judgement;
  commandPattern(command: string): string;
  /** Loads grammars a judgement named in `grammars`, once per process. */
  loadGrammars(langs: readonly ParsedLanguage[]): Promise<void>;
}

/**
 * `judge()` until no grammar is wanted: a judgement that met code whose grammar was not loaded yet is judged again once
 * it is (at most once per language). `judge` may be called more than once, so it must start from the same state.
 */
export async function judgeLoaded(policy: CommandPolicy, judge: () => Judgement): Promise<Judgement> {
  let j = judge();
  while (j.grammars) {
    await policy.loadGrammars(j.grammars);
    j = judge();
  }
  return j;
}

/** Findings that only say the text is not (static) shell; for stdin input they say nothing. */
const notShell: ReadonlySet<string> = new Set<RuleId>(['parse.failed', 'command.computed']);

/**
 * The longest command, program input or script the policy reads. Parsing and walking costs the Core about a thousand
 * times the text's size in the worst case (a few hundred KiB of tree and words per KiB of `a;a;a;…`), and a command
 * an agent sends is a few KiB; longer text is not read at all (see unreadReason).
 */
export const MAX_JUDGED_CHARS = 64 * 1024;

/** Text the policy did not read, whole or in part: it may hide anything, a hardline command too. */
const unread: ReadonlySet<string> = new Set<RuleId>(['text.too_long', 'parse.too_large']);

/** Rules whose danger is outside the container, so a container's skip_container_guards does not cover them. */
const escapesContainer: ReadonlySet<string> = new Set<RuleId>([
  'docker.host',
  'network.metadata',
  'docker.escape',
  'text.too_long',
  'parse.too_large',
]);

export function decide(verdict: PolicyVerdict, reasons: PolicyReason[], ctx: PolicyContext = {}): PolicyDecision {
  if (verdict === 'hardline') return 'refuse';
  if (verdict === 'safe') return 'allow';
  const mode = ctx.mode ?? 'ask';
  // Hardline is refused in every mode, so text that was not read is never let through unasked: with nobody to ask
  // (mode off) it is refused, as under deny.
  if (mode === 'off') return reasons.some((r) => unread.has(r.rule)) ? 'refuse' : 'allow';
  if (ctx.flags?.skip_container_guards && !reasons.some((r) => escapesContainer.has(r.rule))) return 'allow';
  return mode === 'deny' ? 'refuse' : 'ask';
}

function verdictOf(findings: readonly Finding[]): PolicyVerdict {
  if (findings.some((f) => f.severity === 'hardline')) return 'hardline';
  return findings.length ? 'dangerous' : 'safe';
}

/** Hardline reasons first, then in the order found. */
function toReasons(findings: readonly Finding[]): PolicyReason[] {
  const sorted = [
    ...findings.filter((f) => f.severity === 'hardline'),
    ...findings.filter((f) => f.severity !== 'hardline'),
  ];
  return sorted.map((f) => ({ text: f.text, rule: f.rule, severity: f.severity, ...(f.span ? { span: f.span } : {}) }));
}

/** The text of a subject the policy parses (a path is not parsed). */
function judgedText(call: PolicyCall): string | undefined {
  switch (call.kind) {
    case 'command':
      return call.command;
    case 'input':
      return call.data;
    case 'code':
      return call.code;
    case 'path':
      return undefined;
  }
}

const kib = (chars: number): string => `${Math.ceil(chars / 1024)} KiB`;

/**
 * Why text over MAX_JUDGED_CHARS is not judged. It asks a person (with this reason) rather than being refused: a long
 * heredoc is a real thing to run, and a person can look. It is never allowed unasked (see decide).
 */
function unreadReason(chars: number): PolicyReason {
  return {
    severity: 'dangerous',
    rule: 'text.too_long',
    text: `too long to check: ${kib(chars)}, over the ${kib(MAX_JUDGED_CHARS)} the approval policy reads`,
  };
}

/**
 * The "always allow" pattern of text too long to normalise: its digest. A `#` never begins a normalised command (a
 * comment is dropped, a word holding `#` is quoted), so no short command can match it.
 */
function unreadPattern(text: string): string {
  return `#sha256:${createHash('sha256').update(text).digest('hex')} (${kib(text.length)}, too long to read)`;
}

/**
 * The findings, or one that says the text was not read to its end: nesting deeper than the walk's stack (some
 * thousands of `a && a && …` or `$( $( …`) overflows it, and such text is judged as unread, never as safe.
 */
function findingsOrUnread(find: () => readonly Finding[]): readonly Finding[] {
  try {
    return find();
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    return [{ severity: 'dangerous', rule: 'parse.too_large', text: 'nested too deeply to check' }];
  }
}

/** How many scanned commands are remembered, and the longest remembered (a long script is rarely repeated). */
const maxRemembered = 500;
const maxRememberedChars = 4096;

/** What the policy is told once, where it is built. */
export interface PolicyOptions {
  /**
   * The Switchboard profile ($SWITCHBOARD_HOME), absolute: any change to it by an agent, and any read of the file
   * holding the agent token (core.json), is hardline. `$SWITCHBOARD_HOME` in a command stands for it.
   */
  profile?: string;
  /**
   * When the Python and JavaScript grammars load: `all` (the default) before the policy is returned; `when needed` at
   * the first judgement that meets code in the language (see Judgement.grammars), which a long-running Core uses so
   * that it holds no grammar its agents never need.
   */
  codeGrammars?: 'all' | 'when needed';
}

/** `code`: the Python and JavaScript grammars; without them code is read by its text rules alone. */
export function createCommandPolicy(parser: ShellParser, opts: PolicyOptions = {}, code?: CodeParsers): CommandPolicy {
  const scanner = new ShellScanner(parser, code);
  // Normalised once (no trailing slash, no `..`), so every rule compares paths with it as they are.
  const profile = opts.profile === undefined ? undefined : resolvePath(opts.profile, undefined, '~');
  // What a scan finds depends only on the text, the home and the cwd (no file is looked at), and agents repeat
  // commands: the findings of recent ones are kept, so a repeat costs no parse. Findings are never changed after.
  // A scan that wanted to look something up depends on what the look found: with facts, it is not taken from memory.
  const recent = new Map<string, { findings: readonly Finding[]; needs?: ProbeNeeds }>();
  const scanShell = (command: string, ctx: JudgeContext, needs?: ProbeNeeds): readonly Finding[] => {
    const key =
      command.length <= maxRememberedChars && !ctx.session
        ? `${ctx.unsandboxed ? 'u' : ''}\0${ctx.home ?? '~'}\0${ctx.cwd ?? ''}\0${command}`
        : undefined;
    const known = key === undefined ? undefined : recent.get(key);
    if (known && !(ctx.facts && known.needs)) {
      if (known.needs) addNeeds(needs, known.needs);
      return known.findings;
    }
    const own = emptyNeeds();
    const wantedBefore = code?.wanted.size ?? 0;
    const findings = scanner.scan(command, {
      home: ctx.home ?? '~',
      ...(ctx.cwd ? { cwd: ctx.cwd } : {}),
      ...(profile ? { profile } : {}),
      ...(ctx.facts ? { facts: ctx.facts } : {}),
      ...(ctx.session ? { session: ctx.session } : {}),
      ...(ctx.unsandboxed ? { unsandboxed: true } : {}),
      needs: own,
    }).findings;
    addNeeds(needs, own);
    const asked = needCount(own) > 0;
    // A scan that met code whose grammar is not loaded is judged again once it is: it is not remembered.
    const grammarWanted = (code?.wanted.size ?? 0) > wantedBefore;
    if (key !== undefined && !(ctx.facts && asked) && !grammarWanted) {
      if (recent.size >= maxRemembered) recent.delete(recent.keys().next().value as string);
      recent.set(key, asked ? { findings, needs: own } : { findings });
    }
    return findings;
  };
  const pathFindings = (call: Extract<PolicyCall, { kind: 'path' }>, p: string): Finding[] => {
    const via = call.via ? ` (${call.via})` : '';
    const guarded = profileFinding(p, profile, call.access === 'write', call.via ?? call.access);
    if (guarded) return [guarded];
    if (call.access === 'read') {
      if (!profile || !call.tree) return [];
      // A search hands every file under its path to the agent: under the profile (or above it), core.json too.
      if (p === profile)
        return [
          {
            severity: 'hardline',
            rule: 'profile.read',
            text: `reads the Switchboard profile ${p}, where core.json holds the agent token${via}`,
          },
        ];
      if (profile.startsWith(p === '/' ? '/' : `${p}/`))
        return [
          {
            severity: 'dangerous',
            rule: 'profile.tree',
            text: `reads everything under ${p}, the Switchboard profile's core.json with the agent token too${via}`,
          },
        ];
      return [];
    }
    if (isBlockDevice(p))
      return [{ severity: 'hardline', rule: 'disk.overwrite', text: `overwrites the disk device ${p}${via}` }];
    const why = sensitiveWrite(p);
    return why ? [{ severity: 'dangerous', rule: 'write.sensitive', text: `writes to ${p}: ${why}${via}` }] : [];
  };
  const codeOf = (
    text: string,
    language: CodeLanguage,
    ctx: JudgeContext,
    how: string,
    needs: ProbeNeeds,
  ): Finding[] => {
    const place = { home: ctx.home ?? '~', ...(ctx.cwd ? { cwd: ctx.cwd } : {}), ...(profile ? { profile } : {}), how };
    const out: Finding[] = [];
    for (const f of codeFindings(text, language, place, code)) {
      if (f.shell === undefined) out.push({ severity: f.severity, rule: f.rule, text: f.text });
      else
        for (const inner of scanShell(f.shell, { ...ctx, session: undefined }, needs))
          out.push({ severity: inner.severity, rule: inner.rule, text: `${inner.text} in code (${f.via})` });
    }
    return out;
  };
  const findingsFor = (call: PolicyCall, ctx: JudgeContext, needs: Asked): readonly Finding[] => {
    const home = ctx.home ?? '~';
    switch (call.kind) {
      case 'command':
        return scanShell(call.command, ctx, needs);
      case 'path': {
        const lexical = resolvePath(call.path, ctx.cwd, home);
        if (!lexical.startsWith('/')) return pathFindings(call, lexical);
        needs.paths.add(lexical);
        // A write follows links: judged where it lands, and as written (the profile by either name is refused).
        const real = ctx.facts?.real.get(lexical);
        const found = pathFindings(call, lexical);
        if (real === undefined || real === lexical) return found;
        const there = pathFindings(call, real).map((f) => ({ ...f, text: `${f.text}, through the link ${lexical}` }));
        return [...there, ...found.filter((f) => !there.some((t) => t.rule === f.rule))];
      }
      case 'input':
        return inputFindings(call, ctx, needs);
      case 'code':
        return codeOf(call.code, call.language, ctx, call.via ?? 'code', needs);
    }
  };
  /**
   * Stdin of a running program, read as what reads it: a shell's lines with its variables known (a name computed
   * from unknown values asks there), a REPL's code, a SQL client's statements and its shell escapes. Where the reader
   * is not known, only what reads as a dangerous shell command counts.
   */
  const inputFindings = (
    call: Extract<PolicyCall, { kind: 'input' }>,
    ctx: JudgeContext,
    needs: Asked,
  ): readonly Finding[] => {
    const language = call.language ?? 'other';
    switch (language) {
      case 'shell': {
        const all = scanShell(call.data, ctx, needs);
        if (all.some((f) => f.rule === 'parse.failed')) needs.unfinished = true;
        return all.filter((f) => f.rule !== 'parse.failed');
      }
      case 'sql':
        return [
          ...sqlFindings(call.data).map(
            (text): Finding => ({
              severity: 'dangerous',
              rule: 'sql.destructive',
              text: `${text.replace(/\)$/, ' via stdin)')}`,
            }),
          ),
          ...replShellEscapes(call.data).flatMap((line) => scanShell(line, { ...ctx, session: undefined }, needs)),
        ];
      case 'other':
        // Maybe a shell after all (`sh -c 'cat | sh'`): its variables are kept, a name computed from unknowns is not
        // asked.
        return scanShell(call.data, ctx, needs).filter((f) => !notShell.has(f.rule));
      default:
        return [
          ...codeOf(call.data, language, ctx, `${language} stdin`, needs),
          ...replShellEscapes(call.data).flatMap((line) => scanShell(line, { ...ctx, session: undefined }, needs)),
        ];
    }
  };
  const judge = (call: PolicyCall, ctx: JudgeContext): Judgement => {
    const needs: Asked = emptyNeeds();
    code?.wanted.clear();
    // Checked first: nothing of a text this long is normalised, parsed, probed or matched by a rule.
    const text = judgedText(call);
    if (text !== undefined && text.length > MAX_JUDGED_CHARS) {
      const reasons = [unreadReason(text.length)];
      return { verdict: 'dangerous', reasons, decision: decide('dangerous', reasons, ctx), needs };
    }
    const findings = findingsOrUnread(() => findingsFor(call, ctx, needs));
    const verdict = verdictOf(findings);
    const reasons = toReasons(findings);
    const { unfinished, ...asked } = needs;
    const grammars = code?.wanted.size ? [...code.wanted] : undefined;
    return {
      verdict,
      reasons,
      decision: decide(verdict, reasons, ctx),
      needs: asked,
      ...(unfinished ? { unfinished } : {}),
      ...(grammars ? { grammars } : {}),
    };
  };
  return {
    classify(call, ctx = {}) {
      const { needs: _, grammars: __, ...c } = judge(call, ctx);
      return c;
    },
    judge: (call, ctx = {}) => judge(call, ctx),
    commandPattern(command) {
      if (command.length > MAX_JUDGED_CHARS) return unreadPattern(command);
      try {
        return commandPattern(parser, command);
      } catch (err) {
        // Nested deeper than the walk's stack, as findingsOrUnread says: kept by its digest too.
        if (!(err instanceof RangeError)) throw err;
        return unreadPattern(command);
      }
    },
    loadGrammars: (langs) => loadGrammars(langs),
  };
}

type CodeLanguage = Parameters<typeof codeFindings>[1];

function addNeeds(into: ProbeNeeds | undefined, from: ProbeNeeds): void {
  if (!into) return;
  for (const k of ['paths', 'files', 'git'] as const) for (const v of from[k]) into[k].add(v);
  for (const v of from.trees ?? []) into.trees?.add(v);
}

/** What a judgement asks for, and whether shell input was left unfinished. */
type Asked = ProbeNeeds & { unfinished?: boolean };

/**
 * Lines a REPL or SQL client hands to a shell: `\! cmd` (psql, mysql), `.shell`/`.system` (sqlite3), `!cmd` (IPython).
 */
function replShellEscapes(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(?:\\!|\.(?:shell|system)\s|system\s|!)\s*(.+)$/.exec(line);
    if (m) out.push(m[1]!);
  }
  return out;
}

export async function loadCommandPolicy(opts: PolicyOptions = {}): Promise<CommandPolicy> {
  const [shell, code] = await Promise.all([loadShellParser(), loadCodeParsers(opts.codeGrammars !== 'when needed')]);
  return createCommandPolicy(shell, opts, code);
}
