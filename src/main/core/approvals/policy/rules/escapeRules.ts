// Programs that run shell text they are handed in their own syntax: awk's system() and pipes, editors' and pagers'
// `!cmd` (vim -c, less +!, man -P, emacs --eval, gdb -ex), small interpreters (lua, Rscript, osascript, expect),
// wrappers taking a command string (trap, script -c, parallel, tmux, screen), variables that name a command
// (PAGER, GIT_SSH_COMMAND, PROMPT_COMMAND), and loops that start background processes without end.
// Over 380 lines: one rule family; each rule carries its examples (ruleExamples.test.ts).
import { parseOptions } from '../options.js';
import type { Rule, RuleExamples, RuleKit } from '../ruleKit.js';
import type { ShellNode } from '../shellParser.js';
import { isKnown, type Arg, type CommandContext } from '../scanTypes.js';
import { runtimeCode } from './remoteCodeRules.js';

/** Double- or single-quoted literals in program text, escapes undone. */
const literal = String.raw`(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')`;
const unquote = (m: RegExpMatchArray, at = 1): string => (m[at] ?? m[at + 1] ?? '').replace(/\\(.)/g, '$1');

/** Functions that hand a string to a shell, across small languages (lua, R, tcl, AppleScript, julia, expect). */
const shellCalls = new RegExp(
  String.raw`\b(?:os\.execute|io\.popen|system2?|shell(?:-command(?:-to-string)?)?|call-process-shell-command|` +
    `start-process-shell-command|exec|spawn|popen|do ` +
    String.raw`shell script|run)\s*\(?\s*${literal}`,
  'g',
);
const deletes = new RegExp(
  String.raw`\b(unlink|file\.remove|os\.remove|delete-directory|delete-file|remove\.file|file\.delete|rm_rf|` +
    String.raw`rmtree|deleteRecursively|file\s+delete|dir_delete)\b`,
);

/** Program text in a language we do not parse: its literal shell calls are classified, its deletes ask. */
export function foreignCode(kit: RuleKit, c: CommandContext, code: string, at: Arg, label: string): void {
  let calls = 0;
  for (const m of code.matchAll(shellCalls)) {
    calls++;
    kit.payload(c, unquote(m), at);
  }
  // Tcl and expect run a command line with `exec` / `spawn`; julia with run(`…`).
  for (const m of code.matchAll(/(?:^|[;\n[])\s*(?:spawn|exec)\s+([^;\n\]"'(]+)/g)) {
    calls++;
    kit.payload(c, m[1]!.trim(), at);
  }
  for (const m of code.matchAll(/\b(?:run|success|read|pipeline)\s*\(\s*`([^`]*)`/g)) {
    calls++;
    kit.payload(c, m[1]!, at);
  }
  const del = deletes.exec(code);
  if (del) kit.emit(c, 'dangerous', 'code.delete', `deletes files (${del[1]} in ${label} code)`, at);
  if (!calls && /\b(os\.execute|io\.popen|system2?|do shell script|shell-command|spawn)\b/.test(code))
    kit.emit(c, 'dangerous', 'code.shell', `runs shell commands built at run time (${label} code)`, at);
}

/** `-e CODE` (or `-c`, `--eval`) in an interpreter we do not parse. */
const codeFlag =
  (label: string, flags: RegExp): Rule =>
  (argv, c, kit) => {
    argv.forEach((a, i) => {
      const inline = /^--eval=([\s\S]+)$/.exec(a.value);
      const code = inline ? { ...a, value: inline[1]! } : i > 0 && flags.test(argv[i - 1]!.value) ? a : undefined;
      const text =
        code && !isKnown(code) ? runtimeCode(kit, c, `${argv[0]!.value} ${argv[i - 1]!.value}`, code) : code?.value;
      if (code && text !== undefined) foreignCode(kit, c, text, code, label);
    });
  };

const awkBuiltCommand = new RegExp(
  String.raw`\bprintf?\b[^;{}]*?(?<![|"'])\|&?\s*[A-Za-z_$(]|[A-Za-z_)\]]\s*\|&?\s*getline|` +
    String.raw`["']\s+[A-Za-z_$][^;{}|]*\|&?\s*getline`,
);

/** awk: system("…"), `print | "cmd"`, `"cmd" | getline`, and `print > "file"`. */
const awk: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), {
    shortValue: 'Fvfe',
    longValue: ['field-separator', 'assign', 'file', 'source', 'exec', 'include', 'load'],
  });
  const program =
    p.values.get('-e') ??
    p.values.get('--source') ??
    (p.values.has('-f') || p.values.has('--file') ? undefined : p.operands[0]?.value);
  const at = argv.find((a) => a.value === program) ?? argv[0]!;
  if (program === undefined || !isKnown(program)) return;
  const run = new RegExp(
    String.raw`\bsystem\s*\(\s*${literal}\s*\)|` +
      String.raw`\bprintf?\b[^;{}]*?(?<!\|)\|&?\s*${literal}\s*(?=[;}\n]|$)|` +
      String.raw`(?<![\w)"'\]]\s*)${literal}\s*\|&?\s*getline`,
    'g',
  );
  for (const m of program.matchAll(run)) {
    const piped = m[3] !== undefined || m[4] !== undefined;
    const cmd = unquote(m, m[1] !== undefined || m[2] !== undefined ? 1 : piped ? 3 : 5);
    // `print | "sh"` hands what awk prints to a shell or interpreter: its output runs as code.
    if (piped && /^\s*(\S*\/)?(sh|bash|zsh|dash|ksh|ash|fish|python[\d.]*|perl|ruby|node|php|xargs)(\s|$)/.test(cmd))
      kit.emit(c, 'dangerous', 'awk.shell', `runs what it prints as commands (awk print | "${cmd}")`, at);
    kit.payload(c, cmd, at);
  }
  const whole = new RegExp(String.raw`\bsystem\s*\(\s*${literal}\s*\)`, 'g');
  const dynamic = /\bsystem\s*\(/.test(program.replace(whole, '')) || awkBuiltCommand.test(program);
  if (dynamic)
    kit.emit(c, 'dangerous', 'awk.shell', 'runs shell commands built at run time (awk system() or a pipe)', at);
  for (const m of program.matchAll(new RegExp(String.raw`\bprintf?\b[^;{}|]*?>>?\s*${literal}`, 'g')))
    kit.write(c, { ...at, value: unquote(m) }, 'awk print >');
};

/** One vim Ex command: `!cmd`, `r !cmd`, `%!filter`, `call system('…')`, `:sh`, `:terminal`, `:py3 …`. */
function vimCommand(kit: RuleKit, c: CommandContext, cmd: string, at: Arg, label: string): void {
  const text = cmd.replace(/^[:\s]+/, '').replace(/^(silent!?|sil!?|exe(cute)?|norm(al)?!?)\s+/, '');
  const bang = /^(?:[%.$,\d\s']*|(?:r(?:ead)?|w(?:rite)?)\s*)!([\s\S]*)$/.exec(text);
  if (bang) return kit.payload(c, bang[1]!.trim(), at);
  if (/^(py[3x]?|python3?|pyx|pydo|py3do|perl(do)?|ruby(do)?|lua(do)?|mz(scheme)?)\b/.test(text))
    kit.emit(c, 'dangerous', 'editor.shell', `runs code in the editor (${label} ${cmd})`, at);
  const sys = new RegExp(String.raw`\b(?:system|systemlist|job_start|jobstart|termopen)\s*\(\s*\[?\s*${literal}`).exec(
    text,
  );
  if (sys) return kit.payload(c, unquote(sys), at);
  const term = /^(?:sh(?:ell)?|ter(?:m(?:inal)?)?)(?:\s+([\s\S]*))?$/.exec(text);
  if (term)
    return term[1]
      ? kit.payload(c, term[1], at)
      : kit.emit(c, 'dangerous', 'editor.shell', `opens a shell (${label} ${cmd})`, at);
  if (/\bsystem(list)?\s*\(/.test(text))
    kit.emit(c, 'dangerous', 'editor.shell', `runs code in the editor (${label} ${cmd})`, at);
}

/** vi, vim, nvim, ex, view: commands from -c, --cmd and +cmd; the files it edits in the profile are a change to it. */
const vim =
  (label: string): Rule =>
  (argv, c, kit) => {
    argv.slice(1).forEach((a, i) => {
      const prev = argv[i]!.value;
      // `-c CMD`, also at the end of a bundle of flags (`ex -sc CMD`).
      if (/^(-[a-zA-Z]*c|--cmd)$/.test(prev) && isKnown(a)) vimCommand(kit, c, a.value, a, label);
      else if (/^\+./.test(a.value) && !/^\+\d+$|^\+\//.test(a.value) && isKnown(a))
        vimCommand(kit, c, a.value.slice(1), a, label);
      else if (!a.value.startsWith('-') && !/^(-c|--cmd|-S|-u|-i|-T|-w|-W|-s)$/.test(prev))
        kit.profileChange(c, a, label);
    });
    // `vim -es < script` and `ex < script` read Ex commands from stdin.
    if (c.stdin?.text !== undefined && argv.some((a) => /^-[a-zA-Z]*[es]/.test(a.value) || label === 'ex'))
      for (const line of c.stdin.text.split('\n')) if (line.trim()) vimCommand(kit, c, line, argv[0]!, label);
  };

/** ed: `!cmd`, `r !cmd`, `w !cmd` lines in its script; files named are checked for the profile. */
const ed: Rule = (argv, c, kit) => {
  for (const f of argv.slice(1)) if (!f.value.startsWith('-')) kit.profileChange(c, f, 'ed');
  for (const line of c.stdin?.text?.split('\n') ?? []) {
    const m = /^\s*(?:[rwe]\s*)?!(.+)$/.exec(line);
    if (m) kit.payload(c, m[1]!, argv[0]!);
  }
};

/** less `+!cmd`, `++!cmd`: the command runs when less starts. */
const less: Rule = (argv, c, kit) => {
  for (const a of argv.slice(1)) {
    const m = /^\+\+?[^!]*!([\s\S]+)$/.exec(a.value);
    if (m && isKnown(a)) kit.payload(c, m[1]!, a);
  }
};

/** man `-P PAGER`, `--pager=`, `-H BROWSER`, `--html=`: the pager or browser is shell text. */
const man: Rule = (argv, c, kit) => {
  argv.forEach((a, i) => {
    const m = /^(?:--pager=|--html=|-P(?=.)|-H(?=.))([\s\S]+)$/.exec(a.value);
    const cmd = m
      ? { ...a, value: m[1]! }
      : i > 0 && /^(-P|--pager|-H|--html)$/.test(argv[i - 1]!.value)
        ? a
        : undefined;
    if (cmd && isKnown(cmd)) kit.payload(c, cmd.value, cmd);
  });
};

/** emacs `--eval`/`-eval` Lisp: shell-command and call-process strings run, delete-file/-directory delete. */
const emacs: Rule = (argv, c, kit) => {
  for (const f of argv.slice(1))
    if (!f.value.startsWith('-') && !f.value.startsWith('(')) kit.profileChange(c, f, 'emacs');
  argv.forEach((a, i) => {
    const inline = /^--eval=([\s\S]+)$/.exec(a.value);
    const code = inline ? { ...a, value: inline[1]! } : i > 0 && /^(--?eval)$/.test(argv[i - 1]!.value) ? a : undefined;
    if (!code || !isKnown(code)) return;
    for (const m of code.value.matchAll(new RegExp(String.raw`\(call-process\s+${literal}`, 'g')))
      kit.run(c, [{ ...code, value: unquote(m) }]);
    foreignCode(kit, c, code.value, code, 'emacs');
  });
};

/** gdb `-ex '!cmd'`, `-ex 'shell cmd'`; lldb `-o 'platform shell cmd'`. */
const debuggerRule: Rule = (argv, c, kit) => {
  argv.forEach((a, i) => {
    if (i === 0 || !/^(-ex|-iex|--eval-command|-o|--one-line|-O)$/.test(argv[i - 1]!.value) || !isKnown(a)) return;
    const m = /^\s*(?:!|shell\s+|platform\s+shell\s+)([\s\S]+)$/.exec(a.value);
    if (m) kit.payload(c, m[1]!, a);
    else if (/^\s*(python|pi|script)\b/.test(a.value))
      kit.emit(c, 'dangerous', 'editor.shell', `runs code in the debugger (${argv[0]!.value} ${a.value})`, a);
  });
};

/** trap 'cmd' SIGNAL…: the command runs later, when the signal (or EXIT) comes. */
const trap: Rule = (argv, c, kit) => {
  const args = argv[1]?.value === '--' ? argv.slice(1) : argv;
  const first = args[1];
  if (!first || args.length < 3 || /^-[lp]$/.test(first.value) || first.value === '-' || first.value === '') return;
  if (isKnown(first)) kit.payload(c, first.value, first);
};

/** script -c CMD (util-linux) or `script -q FILE CMD…` (BSD): runs CMD under a recorded terminal. */
const script: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), {
    shortValue: 'cEIOBTtm',
    longValue: [
      'command',
      'echo',
      'log-in',
      'log-out',
      'log-io',
      'log-timing',
      'logging-format',
      'output-limit',
      'timing',
    ],
  });
  const cmd = p.values.get('-c') ?? p.values.get('--command');
  if (cmd !== undefined) return kit.payload(c, cmd, argv.find((a) => a.value === cmd) ?? argv[0]!);
  if (p.operands.length >= 2) kit.run(c, p.operands.slice(1));
};

/** GNU parallel and sem: the command before `:::` runs for each argument; with no command, each input line runs. */
const parallel: Rule = (argv, c, kit) => {
  const sep = argv.findIndex((a) => /^:::+\+?$/.test(a.value));
  const head = sep < 0 ? argv : argv.slice(0, sep);
  const p = parseOptions(head.slice(1), {
    shortValue: 'jSaIdnNPEX',
    longValue: [
      'jobs',
      'sshlogin',
      'arg-file',
      'delimiter',
      'max-args',
      'halt',
      'delay',
      'timeout',
      'joblog',
      'results',
      'tmpdir',
      'colsep',
      'env',
      'tagstring',
      'retries',
      'load',
      'memfree',
      'basefile',
      'workdir',
      'id',
    ],
    posix: true,
  });
  const cmd = head.slice(1 + p.rest);
  const first = sep < 0 ? undefined : argv[sep + 1];
  if (cmd.length === 0) {
    if (c.stdin?.text !== undefined) return kit.payload(c, c.stdin.text, argv[0]!);
    return kit.emit(c, 'dangerous', 'wrapper.input', `runs each line of its input as a command (${argv[0]!.value})`);
  }
  if (cmd.length === 1 && isKnown(cmd[0]!) && /\s/.test(cmd[0]!.value))
    return kit.payload(c, cmd[0]!.value.replaceAll('{}', first?.value ?? 'x'), cmd[0]!);
  kit.run(c, [
    ...cmd.map((a) => ({ ...a, value: a.value.replaceAll('{}', first?.value ?? 'x') })),
    ...(first && !cmd.some((a) => a.value.includes('{}')) ? [first] : []),
  ]);
};

const tmuxShellCommands = new RegExp(
  '^(new-session|new|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|' +
    'respawnw|run-shell|run|display-popup|popup)$',
);

/** tmux: the shell command of new-session/new-window/split-window/respawn/run-shell, and the keys send-keys types. */
const tmux: Rule = (argv, c, kit) => {
  let i = 1;
  while (i < argv.length && argv[i]!.value.startsWith('-')) i += /^-[SLfcT]$/.test(argv[i]!.value) ? 2 : 1;
  const sub = argv[i]?.value ?? '';
  const rest = argv.slice(i + 1);
  if (/^(send-keys|send)$/.test(sub)) {
    const p = parseOptions(rest, { shortValue: 'tNc' });
    const keys = p.operands.filter((k) => !/^(Enter|C-m|KPEnter|C-j)$/.test(k.value));
    if (keys.length && keys.every(isKnown)) kit.payload(c, keys.map((k) => k.value).join(' '), keys[0]!);
    return;
  }
  if (!tmuxShellCommands.test(sub)) return;
  const p = parseOptions(rest, { shortValue: 'ceFfnstxylpTw' });
  const cmd = p.operands;
  if (cmd.length === 1 && isKnown(cmd[0]!)) kit.payload(c, cmd[0]!.value, cmd[0]!);
  else if (cmd.length > 1) kit.run(c, cmd);
};

/** screen -dm CMD…, and `screen -X stuff 'text'`, which types text into a window's shell. */
const screen: Rule = (argv, c, kit) => {
  const stuff = argv.findIndex((a) => a.value === 'stuff');
  if (stuff > 0 && argv[stuff + 1] && isKnown(argv[stuff + 1]!))
    return kit.payload(c, argv[stuff + 1]!.value.replace(/\\n|\^M|\r/g, '\n'), argv[stuff + 1]!);
  let i = 1;
  // A bundle ending in a letter that takes a value (`-dmS name`) takes the next word.
  while (i < argv.length && argv[i]!.value.startsWith('-'))
    i += /^-[a-zA-Z]*[ScehptTXrxRs]$|^-Logfile$/.test(argv[i]!.value) ? 2 : 1;
  if (argv.slice(1, i).some((a) => /^-(X|r|x|R|ls|list|wipe)$/.test(a.value))) return;
  const cmd = argv.slice(i);
  if (cmd.length) kit.run(c, cmd);
};

/** Variables whose value a program later runs as a command line, and those naming a file every shell runs. */
const commandVars = new Set([
  'PAGER',
  'MANPAGER',
  'GIT_PAGER',
  'GIT_EDITOR',
  'EDITOR',
  'VISUAL',
  'SUDO_EDITOR',
  'KUBE_EDITOR',
  'FCEDIT',
  'GIT_SSH_COMMAND',
  'GIT_SSH',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'PROMPT_COMMAND',
  'LESSOPEN',
  'LESSCLOSE',
  'BROWSER',
  'SYSTEMD_PAGER',
  'PSQL_PAGER',
  'GIT_EXTERNAL_DIFF',
  'GIT_SEQUENCE_EDITOR',
  'RSYNC_RSH',
  'GIT_PROXY_COMMAND',
]);
const startupVars = new Set(['BASH_ENV', 'ENV', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT']);

/** Variables that turn off TLS certificate checks, and the values that do it. */
const tlsOff: Record<string, RegExp> = {
  NODE_TLS_REJECT_UNAUTHORIZED: /^0$/,
  GIT_SSL_NO_VERIFY: /^(1|true|yes)$/i,
  PYTHONHTTPSVERIFY: /^0$/,
  npm_config_strict_ssl: /^(false|0)$/i,
  NPM_CONFIG_STRICT_SSL: /^(false|0)$/i,
  YARN_ENABLE_STRICT_SSL: /^(false|0)$/i,
  CURL_INSECURE: /^(1|true)$/i,
};

export function commandVariable(name: string, value: Arg, c: CommandContext, kit: RuleKit): void {
  if (!isKnown(value) || value.value === '') return;
  if (tlsOff[name]?.test(value.value))
    kit.emit(c, 'dangerous', 'security.off', `turns off TLS certificate checks (${name}=${value.value})`, value);
  if (commandVars.has(name))
    kit.payload(c, value.value.replace(/^\s*(\|\|?|!)\s*/, '').replaceAll('%s', 'file'), value);
  else if (startupVars.has(name))
    kit.emit(c, 'dangerous', 'env.startup', `makes programs run ${value.value} when they start (${name})`, value);
  else if (name === 'NODE_OPTIONS' && /--(require|import|loader)\b|(^|\s)-r\s/.test(value.value))
    kit.emit(c, 'dangerous', 'env.startup', 'makes every node process load a module first (NODE_OPTIONS)', value);
}

/**
 * A loop that never ends (`while true`, `while :`, `until false`, `for ((;;))`, `yes | while read`), or runs ten
 * thousand times or more, and puts a command in the background on each pass, with no `wait`, `break` or `exit` in its
 * body, starts processes without bound.
 */
export function floodLoop(node: ShellNode): boolean {
  const body = node.childForFieldName('body');
  if (!body) return false;
  const text = node.text;
  let endless: boolean;
  if (node.type === 'c_style_for_statement') endless = /^for\s*\(\([^;]*;\s*;/.test(text);
  // `for i in $(seq 1 100000)` or `{1..100000}`: bounded, but ten thousand background processes at once is a flood too.
  else if (node.type === 'for_statement')
    endless = node
      .childrenForFieldName('value')
      .some(
        (v) =>
          Number(
            /^\$\(\s*seq\s+(?:-?\d+\s+){0,2}?(\d+)\s*\)$|^\{-?\d+\.\.(\d+)(\.\.\d+)?\}$/
              .exec(v.text)
              ?.slice(1, 3)
              .find(Boolean) ?? 0,
          ) >= 10000,
      );
  else {
    const until = node.children[0]?.type === 'until';
    const cond = (node.childForFieldName('condition')?.text ?? '').replace(/;\s*$/, '').trim();
    const fed =
      node.parent?.type === 'pipeline' &&
      /^(yes|cat\s+\/dev\/(zero|u?random))\b/.test(node.parent.namedChildren[0]?.text ?? '');
    endless = until
      ? /^(false|!\s*true|\[\s*0\s*-eq\s*1\s*\])$/.test(cond)
      : /^(true|:|\[\[?\s*1\s*\]\]?|\(\(\s*1\s*\)\)|test\s+1|sleep\s+[\d.]+)$/.test(cond) ||
        (fed && /^read\b/.test(cond));
  }
  if (!endless) return false;
  const backgrounds = (n: ShellNode): boolean =>
    n.children.some(
      (ch) => (!ch.isNamed && ch.type === '&') || (ch.isNamed && ch.type !== 'function_definition' && backgrounds(ch)),
    );
  const bounded = /(^|[\s;&|({])(wait|break|exit|return)(\s|;|$|\))/.test(body.text);
  return backgrounds(body) && !bounded;
}

/** Options whose value is a command line the program runs (`zip -TT`, `nodemon --exec`, `hyperfine --prepare`). */
const commandOptions =
  (names: RegExp, operandsAreCommands = false): Rule =>
  (argv, c, kit) => {
    argv.forEach((a, i) => {
      const inline = /^(--[\w-]+)=([\s\S]+)$/.exec(a.value);
      const cmd =
        inline && names.test(inline[1]!)
          ? { ...a, value: inline[2]! }
          : i > 0 && names.test(argv[i - 1]!.value)
            ? a
            : undefined;
      if (cmd && isKnown(cmd)) kit.payload(c, cmd.value, cmd);
    });
    if (!operandsAreCommands) return;
    const dash = argv.findIndex((a) => a.value === '--');
    if (dash > 0) return void kit.run(c, argv.slice(dash + 1));
    // Each operand that is not an option's value is a whole command line (`hyperfine 'cmd1' 'cmd2'`).
    argv.slice(1).forEach((a, i) => {
      if (!a.value.startsWith('-') && !argv[i]!.value.startsWith('-') && isKnown(a)) kit.payload(c, a.value, a);
    });
  };

export const escapeRules: Record<string, Rule> = {
  zip: commandOptions(/^(-TT|--unzip-command)$/),
  hyperfine: commandOptions(/^(-p|--prepare|-c|--cleanup|-s|--setup|--conclude)$/, true),
  watchexec: commandOptions(/^(--shell|--on-busy-update)$/, true),
  nodemon: commandOptions(/^(-x|--exec)$/),
  reflex: commandOptions(/(?!)/, true),
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  ...Object.fromEntries(['vi', 'vim', 'nvim', 'view', 'gvim', 'vimdiff', 'ex'].map((e) => [e, vim(e)])),
  ed,
  less,
  man,
  emacs,
  gdb: debuggerRule,
  lldb: debuggerRule,
  lua: codeFlag('lua', /^-e$/),
  luajit: codeFlag('lua', /^-e$/),
  Rscript: codeFlag('R', /^-e$/),
  rscript: codeFlag('R', /^-e$/),
  R: codeFlag('R', /^-e$/),
  osascript: codeFlag('AppleScript', /^-e$/),
  expect: codeFlag('expect', /^-c$/),
  julia: codeFlag('julia', /^(-e|--eval)$/),
  tclsh: codeFlag('tcl', /^-c$/),
  trap,
  script,
  parallel,
  sem: parallel,
  tmux,
  byobu: tmux,
  screen,
};

export const escapeExamples: RuleExamples = {
  'security.off': {
    match: ['export NODE_TLS_REJECT_UNAUTHORIZED=0', 'GIT_SSL_NO_VERIFY=1 git clone https://x.example/r.git'],
    notMatch: ['export NODE_ENV=production', 'NODE_TLS_REJECT_UNAUTHORIZED=1 node app.js'],
  },
  'awk.shell': {
    match: ['awk \'{ print | "sh" }\' cmds.txt', "awk '{ system($1) }' list.txt"],
    notMatch: ["awk '{ print $1 }' data.csv", "awk -F, '{ s += $2 } END { print s }' data.csv"],
  },
  'editor.shell': { match: ["vim -c ':terminal'", "gdb -ex 'python print(1)' ./app"], notMatch: ['vim src/main.ts'] },
  'code.delete': { match: ['lua -e \'os.remove("data.db")\''], notMatch: ["lua -e 'print(1)'"] },
  'code.shell': { match: ["lua -e 'os.execute(cmd)'"], notMatch: ["lua -e 'print(os.time())'"] },
  'env.startup': {
    match: ['export BASH_ENV=/tmp/x.sh', 'NODE_OPTIONS="--require ./hook.js" node app.js'],
    notMatch: ['NODE_OPTIONS=--max-old-space-size=4096 node app.js'],
  },
  'wrapper.input': { match: ['cat jobs.txt | parallel'], notMatch: ['parallel gzip ::: a.txt b.txt'] },
};
