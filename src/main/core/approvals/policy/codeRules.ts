// Code handed to an interpreter (execute_code's Python, `python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`).
// Python and JavaScript are judged on their syntax tree (code/pythonAnalysis.ts, code/javascriptAnalysis.ts: imports,
// aliases, getattr, decoded exec, joined paths); perl, ruby and php, and Python or JavaScript that does not parse,
// get a lexical scan for shell calls with literal commands (then parsed as shell) and for tree deletes.
import { CodeEffects, type CodeFinding, type CodePlace } from './code/codeEffects.js';
import type { CodeParsers } from './code/codeParsers.js';
import { JavaScriptAnalysis } from './code/javascriptAnalysis.js';
import { PythonAnalysis } from './code/pythonAnalysis.js';
import { profileFinding, resolveLiteralPath } from './paths.js';
import type { Finding } from './scanTypes.js';
import type { RuleId } from './ruleIds.js';

export type { CodeFinding, CodePlace } from './code/codeEffects.js';
export type CodeLanguage = 'python' | 'perl' | 'ruby' | 'node' | 'php';

/**
 * What the code does, as findings and as shell text for the caller to classify (`shell` set). With the parsers,
 * Python and JavaScript are read as syntax trees; code that does not parse is read by the text rules as well.
 */
export function codeFindings(code: string, lang: CodeLanguage, place: CodePlace, parsers?: CodeParsers): CodeFinding[] {
  if (parsers && (lang === 'python' || lang === 'node')) {
    // Never let through because its grammar is not loaded yet: it asks, and the judgement names the grammar it wants
    // (CommandPolicy: Judgement.grammars), so that its caller loads it and judges again.
    if (!parsers.has(lang)) return [notLoadedYet(lang), ...textFindings(code, lang, place)];
    const effects = new CodeEffects(place);
    const analysis =
      lang === 'python'
        ? new PythonAnalysis('python', parsers, effects)
        : new JavaScriptAnalysis('node', parsers, effects);
    let clean = false;
    try {
      clean = analysis.analyse(code);
    } catch (err) {
      // A fault in the analysis must not let the code through unasked, nor fail the tool call: it asks, and says why.
      effects.ask('code.unchecked', `could not be checked (${err instanceof Error ? err.message : String(err)})`);
    }
    const out = effects.findings();
    if (forkBomb.test(code)) out.push(forkBombFinding);
    return clean ? out : [...out, ...textFindings(code, lang, place)];
  }
  return textFindings(code, lang, place);
}

function notLoadedYet(lang: 'python' | 'node'): CodeFinding {
  const name = lang === 'python' ? 'Python' : 'JavaScript';
  return { severity: 'dangerous', rule: 'code.unchecked', text: `${name} code not checked: its grammar is not loaded` };
}

/** The lexical rules, with the literal paths they find judged against the Switchboard profile. */
function textFindings(code: string, lang: CodeLanguage, place: CodePlace): CodeFinding[] {
  const out: CodeFinding[] = [];
  for (const f of lexicalFindings(code, lang)) {
    if (f.path) {
      const found = profileFinding(
        resolveLiteralPath(f.path.literal, place.cwd, place.home, place.profile),
        place.profile,
        f.path.writes,
        place.how,
      );
      if (found) out.push(found);
    } else if (f.shell !== undefined) out.push({ shell: f.shell, via: lang });
    else out.push({ severity: f.severity, rule: f.rule, text: f.text });
  }
  return out;
}

interface LexicalFinding {
  /** Shell text the code runs; the caller classifies it. */
  shell?: string;
  /** A path the code names as a literal, and whether the code writes, moves or deletes files at all. */
  path?: { literal: string; writes: boolean };
  severity: Finding['severity'];
  rule: RuleId;
  text: string;
}

const forkBomb = new RegExp(
  String.raw`\bwhile\b[^\n]*[\s\S]{0,80}\bfork\s*\(|fork\s+while\s+fork|\bfork\b[^\n]*\bwhile\b|\bloop\s*(?:do|` +
    String.raw`\{)[\s\S]{0,40}\bfork\b|\bfor\s*\(\s*;\s*;\s*\)[\s\S]{0,40}\bfork\s*\(`,
);
const forkBombFinding: Finding = {
  severity: 'hardline',
  rule: 'forkbomb',
  text: 'fork bomb: forks in an endless loop',
};

const strLit =
  String.raw`(?:[rRbBuUfF]{0,2})(?:"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n` +
  String.raw`]|\\.)*'|\x60[^\x60]*\x60)`;
const listLit = String.raw`\[\s*${strLit}(?:\s*,\s*${strLit})*\s*,?\s*\]`;

/** A home-directory expression (`os.path.expanduser(…)`, `Path.home()`, `$HOME`, …) shown as `~`. */
const homeAsTilde = (path: string): string =>
  path.replace(/^os\.path\.expanduser.*|^Path\.home.*|.*HOME.*|^Dir\.home|^os\.homedir.*/, '~');

/** A literal's value: quotes and escapes removed, f-string holes become an unknown `$V`. */
function literal(src: string): string {
  const m = /^([rRbBuUfF]{0,2})("""|'''|"|'|`)([\s\S]*)\2$/.exec(src.trim());
  if (!m) return src;
  const prefix = m[1]!.toLowerCase();
  let body = m[3]!;
  if (!prefix.includes('r'))
    body = body.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|[ntr\\'"])/g, (_, e: string) =>
      e[0] === 'x'
        ? String.fromCharCode(parseInt(e.slice(1), 16))
        : /^[0-7]/.test(e)
          ? String.fromCharCode(parseInt(e, 8))
          : e === 'n'
            ? '\n'
            : e === 't'
              ? '\t'
              : e === 'r'
                ? '\r'
                : e,
    );
  if (prefix.includes('f')) body = body.replace(/\{[^{}]*\}/g, '$V');
  if (m[2] === '`' || /#\{/.test(body)) body = body.replace(/#\{[^}]*\}|\$\{[^}]*\}/g, '$V');
  return body;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command text of a call argument: a literal, a list of literals, or a name bound to a literal. */
function commandText(arg: string, names: Map<string, string>): string | undefined {
  const a = arg.trim();
  if (new RegExp(`^${listLit}$`).test(a))
    return [...a.matchAll(new RegExp(strLit, 'g'))].map((m) => shellQuote(literal(m[0]))).join(' ');
  if (new RegExp(`^${strLit}$`).test(a)) return literal(a);
  return names.get(a);
}

const shellCalls: Record<string, RegExp> = {
  python: new RegExp(
    String.raw`(?:\.(?:system|popen)|\bos\.(?:execl?p?e?|spawnl?p?e?)|subprocess\.(?:run|call|check_call|` +
      String.raw`check_output|Popen|getoutput|getstatusoutput)|commands\.getoutput|pty\.spawn|` +
      String.raw`(?<![.\w])(?:system|popen|run|call|check_output|check_call|Popen))\s*\(`,
    'g',
  ),
  perl: /\b(?:system|exec|qx)\s*[({]?|(?<![\w$])`/g,
  ruby: /\b(?:system|exec|spawn|`|%x)\s*[({]?|IO\.popen\s*\(|Open3\.\w+\s*\(/g,
  node: /\b(?:execSync|exec|execFileSync|spawnSync|spawn)\s*\(/g,
  php: /\b(?:system|exec|shell_exec|passthru|popen|proc_open)\s*\(/g,
};

const treeDeletes: Record<string, RegExp> = {
  python: /\bshutil\.rmtree\s*\(\s*((?:[^,()]|\([^()]*\))*)/g,
  perl: /\b(?:rmtree|remove_tree)\s*\(?\s*([^,);]*)/g,
  ruby: /\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry)\s*\(?\s*([^,)]*)/g,
  node: /\b(?:rmSync|rm|rmdirSync|rmdir)\s*\(\s*([^,)]*),[^)]*recursive\s*:\s*true/g,
  php: /\$NEVER\b()/g,
};

const vitalLiteral = new RegExp(
  String.raw`^(?:['"](\/|~|\/(etc|usr|bin|home|var|root|boot|lib)\/?)['"]|` +
    String.raw`os\.path\.expanduser\(\s*['"]~\/?['"]\s*\)|Path\.home\(\)|os\.environ\[['"]HOME['"]\]|` +
    String.raw`os\.getenv\(\s*['"]HOME['"]\s*\)|\$ENV\{HOME\}|Dir\.home|os\.homedir\(\)|ENV\[['"]HOME['"]\])$`,
);

/** Calls that change files, in any of the languages (open for writing, write, delete, move, copy, link, mode). */
const changesFiles = new RegExp(
  String.raw`\bopen\s*\([^)]*,\s*['"][^'"]*[wax+]|\bopen\s*\(?\s*(?:my\s+)?\$?\w+\s*,\s*['"](?:>|\+<)|` +
    'write_text|write_bytes|writeFile|appendFile|createWriteStream|file_put_contents|' +
    String.raw`fopen\s*\([^)]*,\s*['"][wax]|File\.(?:write|open\s*\([^)]*['"][wa])|FileUtils|shutil\.\w+|` +
    String.raw`os\.(?:remove|unlink|rename|replace|rmdir|removedirs|makedirs|mkdir|chmod|chown|symlink|link|` +
    String.raw`truncate)|\.(?:unlink|rename|touch|rmdir|symlink_to|chmod)\s*\(|\b(?:unlink|unlinkSync|rmSync|rm|` +
    'renameSync|rename|copyFile|copyFileSync|cpSync|symlink|symlinkSync|truncate|truncateSync|chmod|' +
    String.raw`chmodSync|rmtree|remove_tree|copy|move)\s*\(`,
);

/** String literals that read as paths: absolute, from the home or a variable, relative with a slash, or core.json. */
function pathLiterals(code: string): { value: string; at: number }[] {
  const out: { value: string; at: number }[] = [];
  for (const m of code.matchAll(new RegExp(strLit, 'g'))) {
    const value = literal(m[0]);
    if (
      value.length < 256 &&
      !/[\n\0]/.test(value) &&
      /^(~|\/|\$|\.\.?\/)|\/|core\.json/.test(value) &&
      !/^[a-z]+:\/\//i.test(value)
    )
      out.push({ value, at: m.index! });
  }
  return out;
}

/** The statement (line or `;`-separated part) around an offset. */
function statementAt(code: string, at: number): string {
  const start = Math.max(code.lastIndexOf('\n', at), code.lastIndexOf(';', at)) + 1;
  const ends = [code.indexOf('\n', at), code.indexOf(';', at)].filter((i) => i >= 0);
  return code.slice(start, ends.length ? Math.min(...ends) : code.length);
}

/**
 * Does the code change the file a literal names: a statement holding the literal changes files, or the literal is
 * bound to a name (`p = '…'`) that a statement changing files uses.
 */
function changes(code: string, at: number, names: Map<string, string>): boolean {
  if (changesFiles.test(statementAt(code, at))) return true;
  const bound = /([A-Za-z_]\w*)\s*=\s*$/.exec(code.slice(Math.max(0, at - 64), at))?.[1];
  if (!bound || !names.has(bound)) return false;
  const use = new RegExp(`\\b${bound}\\b`, 'g');
  for (const m of code.matchAll(use))
    if (m.index !== undefined && changesFiles.test(statementAt(code, m.index))) return true;
  return false;
}

const deleteInWalkLoop = new RegExp(
  String.raw`\bfor\b[^\n]*\b(os\.walk|os\.listdir|os\.scandir|glob\.i?glob|\.rglob|\.glob|\.iterdir|` +
    String.raw`Path\([^)]*\)\.(r?glob|iterdir))\b[\s\S]*?\b(os\.(remove|unlink|rmdir)|\.unlink\(|\.rmdir\(|` +
    String.raw`shutil\.rmtree)`,
);

/** The statement around an offset, cut short for a reason: `unlink glob("*")`. */
function excerpt(code: string, at: number): string {
  const start = Math.max(code.lastIndexOf(';', at), code.lastIndexOf('\n', at)) + 1;
  const text = code.slice(start).split(/[;\n]/)[0]!.trim();
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** Calls that delete files, by language (tree deletes are treeDeletes'). */
const fileDeletes: Record<'perl' | 'ruby' | 'php', RegExp> = {
  perl: /\bunlink\b/g,
  ruby: /\b(?:File\.(?:delete|unlink)|FileUtils\.(?:rm|rm_f|remove|remove_file|rmdir)|Dir\.(?:rmdir|delete|unlink))\b/g,
  php: /\b(?:unlink|rmdir)\s*\(|['"]unlink['"]/g,
};
/** Code run from a string: perl `eval EXPR` (not `eval { … }`), Ruby's evals, PHP's eval. */
const evals: Record<'perl' | 'ruby' | 'php', RegExp> = {
  perl: /\beval\b(?!\s*\{)/g,
  ruby: /\b(?:eval|instance_eval|class_eval|module_eval)\b/g,
  php: /\b(?:eval|create_function)\s*\(/g,
};
/** Reading from the network, in any of the three. */
const fetches =
  /https?:\/\/|\bLWP\b|\bHTTP::Tiny\b|\bget\s*\(|open-uri|URI\.open|Net::HTTP|file_get_contents|curl_exec/;
/** Files written, by language: the path literal is group 1. */
const fileWrites: Record<'perl' | 'ruby' | 'php', RegExp> = {
  perl: new RegExp(
    String.raw`\bopen\s*\(?\s*(?:my\s+)?\$?\w+\s*,\s*(?:['"](?:>>?|\+<)['"]\s*,\s*(${strLit})|["']>>?\s*([^"'$]+)["'])`,
    'g',
  ),
  ruby: new RegExp(String.raw`\bFile\.(?:write|open\s*\(\s*(?=${strLit}\s*,\s*['"][wa]))\s*\(?\s*(${strLit})`, 'g'),
  php: new RegExp(
    String.raw`\b(?:file_put_contents|fopen\s*\(\s*(?=${strLit}\s*,\s*['"][wax]))\s*\(?\s*(${strLit})`,
    'g',
  ),
};

/**
 * What Perl, Ruby and PHP code does that a text scan can see: deletes ask (naming the call), eval of a string asks
 * (as downloaded code when the code reads the network), and files written are judged as the shell would judge a write
 * to them.
 */
function scriptEffects(code: string, lang: 'perl' | 'ruby' | 'php'): LexicalFinding[] {
  const out: LexicalFinding[] = [];
  const del = fileDeletes[lang].exec(code);
  fileDeletes[lang].lastIndex = 0;
  if (del)
    out.push({
      severity: 'dangerous',
      rule: 'code.delete',
      text: `deletes files (${lang} ${excerpt(code, del.index)})`,
    });
  const ev = evals[lang].exec(code);
  evals[lang].lastIndex = 0;
  if (ev)
    out.push(
      fetches.test(code)
        ? {
            severity: 'dangerous',
            rule: 'remote.eval',
            text: `runs code it downloads (${lang} ${excerpt(code, ev.index)})`,
          }
        : {
            severity: 'dangerous',
            rule: 'code.dynamic',
            text: `runs code built at run time (${lang} ${excerpt(code, ev.index)})`,
          },
    );
  for (const m of code.matchAll(fileWrites[lang])) {
    const path = m[1] !== undefined ? literal(m[1]) : m[2]?.trim();
    if (path)
      out.push({ shell: `printf x > ${shellQuote(path)}`, severity: 'dangerous', rule: 'code.write', text: '' });
  }
  return out;
}

function lexicalFindings(code: string, lang: CodeLanguage): LexicalFinding[] {
  const out: LexicalFinding[] = [];
  const names = new Map<string, string>();
  for (const m of code.matchAll(
    new RegExp(
      String.raw`^\s*(?:(?:my|const|let|var)\s+)?\$?([A-Za-z_]\w*)\s*=\s*(${strLit}|${listLit})\s*;?\s*$`,
      'gm',
    ),
  )) {
    const text = commandText(m[2]!, new Map());
    if (text !== undefined) names.set(m[1]!, text);
  }
  for (const m of code.matchAll(shellCalls[lang]!)) {
    const after = code.slice(m.index! + m[0].length);
    if (m[0] === '`' || m[0].startsWith('%x')) {
      const end = after.indexOf(m[0] === '`' ? '`' : ')');
      if (end > 0)
        out.push({
          shell: after.slice(0, end).replace(/#\{[^}]*\}|\$\w+/g, '$V'),
          severity: 'dangerous',
          rule: 'code.shell',
          text: '',
        });
      continue;
    }
    const arg = new RegExp(String.raw`^\s*(?:[\w.]+\s*,\s*)?(${listLit}|${strLit}|[A-Za-z_]\w*)`).exec(after);
    const text = arg ? commandText(arg[1]!, names) : undefined;
    if (text !== undefined) out.push({ shell: text, severity: 'dangerous', rule: 'code.shell', text: '' });
    // Perl, Ruby and PHP are read by their text alone: a command it cannot read is not let through.
    else if (lang === 'perl' || lang === 'ruby' || lang === 'php')
      out.push({
        severity: 'dangerous',
        rule: 'code.shell',
        text: `runs a shell command built at run time (${lang} ${excerpt(code, m.index!)})`,
      });
  }
  if (lang === 'perl' || lang === 'ruby' || lang === 'php') out.push(...scriptEffects(code, lang));
  for (const m of code.matchAll(treeDeletes[lang]!)) {
    const target = (m[1] ?? '').trim();
    if (vitalLiteral.test(target))
      out.push({
        severity: 'hardline',
        rule: 'delete.vital',
        text: `recursive delete of ${homeAsTilde(literal(target))} (${m[0].split('(')[0]!.trim()})`,
      });
    else
      out.push({
        severity: 'dangerous',
        rule: 'delete.tree',
        text:
          `deletes a directory ` +
          `tree ${/^['"]/.test(target) ? literal(target) + ' ' : ''}(${m[0].split('(')[0]!.trim()})`,
      });
  }
  if (lang === 'python' && deleteInWalkLoop.test(code)) {
    out.push({
      severity: 'dangerous',
      rule: 'delete.walk',
      text: 'deletes files in a loop over a directory walk (os.remove in os.walk)',
    });
  }
  if (forkBomb.test(code)) out.push(forkBombFinding);
  for (const m of code.matchAll(
    new RegExp(String.raw`\bopen\s*\(\s*(${strLit})\s*,\s*['"][^'"]*[wa+x][^'"]*['"]`, 'g'),
  )) {
    out.push({ shell: `: > ${shellQuote(literal(m[1]!))}`, severity: 'dangerous', rule: 'code.write', text: '' });
  }
  for (const p of pathLiterals(code))
    out.push({
      path: { literal: p.value, writes: changes(code, p.at, names) },
      severity: 'dangerous',
      rule: 'code.path',
      text: '',
    });
  return out;
}
