// What a write to a background process's stdin will make it run. A shell runs whole lines, so a line split over
// several writes is judged once it is whole (`shut` then `down -h now\n`), with the variables earlier lines set
// (`z=$x$y` then `$z -rf …`); a REPL or SQL client is judged in its own language. State is kept per process and
// changes only when a write is let through.
import type { InputLanguage } from '../../../shared/tools.js';

/** The text kept from earlier writes: an unfinished line or block, and name bindings a REPL still knows. */
const MAX_PENDING_CHARS = 64 * 1024;
const MAX_BINDINGS = 64;

const remoteShell = /^(ssh|mosh)$/;
const containerExec = /^(docker|podman|nerdctl|kubectl|oc)$/;
const shells = /^(sh|bash|zsh|dash|ksh|mksh|ash|rbash|yash|busybox)$/;
const sqlClients = /^(psql|mysql|mariadb|sqlite3?|clickhouse-client|cockroach|redis-cli|duckdb)$/;
const repls: ReadonlyArray<readonly [RegExp, InputLanguage]> = [
  [/^(python[\d.]*|pypy[\d.]*|ipython[\d.]*|bpython)$/, 'python'],
  [/^(node|nodejs|deno|bun|mongo|mongosh)$/, 'node'],
  [/^(perl[\d.]*|re\.pl)$/, 'perl'],
  [/^(ruby[\d.]*|irb|pry)$/, 'ruby'],
];
/** Programs that run the rest of their words as the command (`sudo bash`, `nohup python3 -i`). */
const wrappers =
  /^(sudo|doas|env|nohup|exec|nice|ionice|stdbuf|setsid|time|command|builtin|unbuffer|timeout|chroot|script|taskset)$/;

function words(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/**
 * What reads the stdin of a process started with this command: its first pipeline stage's program once wrappers
 * are peeled off. A shell given a script or `-c` reads stdin as data, as does an interpreter given a script.
 */
export function inputLanguageOf(command: string): InputLanguage {
  const first = command.split(/\|(?!\|)|&&|;/)[0] ?? '';
  let w = words(first);
  while (w.length && /^[A-Za-z_]\w*=/.test(w[0]!)) w = w.slice(1);
  for (let guard = 0; guard < 8 && w.length; guard++) {
    const name = w[0]!.slice(w[0]!.lastIndexOf('/') + 1);
    const args = w.slice(1);
    const operands = args.filter((a) => !a.startsWith('-'));
    if (name === 'sudo' || name === 'doas' || name === 'su') {
      if (args.some((a) => /^-[a-zA-Z]*[si]$/.test(a) || a === '-') || operands.length === 0) return 'shell';
    }
    if (wrappers.test(name) || name === 'sudo' || name === 'doas') {
      let i = 0;
      while (
        i < args.length &&
        (args[i]!.startsWith('-') || /^[A-Za-z_]\w*=/.test(args[i]!) || (name === 'timeout' && /^\d/.test(args[i]!)))
      )
        i++;
      w = args.slice(i);
      continue;
    }
    // Programs here, not backends: a remote shell's client, and container runtimes' `exec`.
    if (remoteShell.test(name)) return operands.length <= 1 ? 'shell' : inputLanguageOf(operands.slice(1).join(' '));
    if (containerExec.test(name) && args[0] === 'exec') {
      const rest = args.slice(1);
      const at = rest.findIndex((a, i) => !a.startsWith('-') && !/^-(e|u|w|c|n)$/.test(rest[i - 1] ?? ''));
      w = rest.slice(at + 1).filter((a) => a !== '--');
      continue;
    }
    if (shells.test(name))
      return args.some((a) => /^-[a-zA-Z]*c/.test(a)) || (operands.length > 0 && !args.includes('-s'))
        ? 'other'
        : 'shell';
    if (sqlClients.test(name)) return 'sql';
    const repl = repls.find(([re]) => re.test(name));
    if (repl) return args.some((a) => a === '-i') || operands.length === 0 ? repl[1] : 'other';
    return 'other';
  }
  return 'other';
}

interface ProcessInput {
  language: InputLanguage;
  /** Text after the last newline: not run yet. */
  partial: string;
  /** Whole lines of a block the reader has not finished (a shell `for … do` without `done`, SQL without `;`). */
  open: string;
  vars: Map<string, string>;
  cwd: string | undefined;
  /** A REPL's `name = '…'` lines, so code that uses the name later is judged with the text. */
  bindings: string[];
}

/** One write, ready to judge: the text that will run now, and how the process's state moves if it is let through. */
export interface PreparedInput {
  language: InputLanguage;
  /** What runs now (whole lines, with what they need from before); '' when nothing does. */
  text: string;
  /** For a shell: its variables and cwd, which judging the text changes. */
  session?: { vars: Map<string, string>; cwd?: string };
  /** Call once the write is let through; `unfinished` when the text reads as a block not closed yet. */
  commit(unfinished: boolean): void;
}

const binding = /^\s*(?:(?:my|const|let|var)\s+)?\$?[A-Za-z_]\w*\s*=\s*[^=\s]/;

export class StdinJudge {
  private readonly byProcess = new Map<string, ProcessInput>();
  private readonly queues = new Map<string, Promise<unknown>>();

  /** Writes to one process are judged one after another (an approval may wait for a person in between). */
  async serial<T>(id: string, work: () => Promise<T>): Promise<T> {
    const before = this.queues.get(id) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => undefined); // the queue only orders; each caller awaits its own run
    this.queues.set(id, tail);
    void tail.then(() => {
      if (this.queues.get(id) === tail) this.queues.delete(id);
    });
    return run;
  }

  prepare(id: string, process: { command: string; cwd?: string }, data: string): PreparedInput {
    const st = this.byProcess.get(id) ?? {
      language: inputLanguageOf(process.command),
      partial: '',
      open: '',
      vars: new Map(),
      cwd: process.cwd,
      bindings: [],
    };
    const assembled = st.partial + data;
    const cut = assembled.lastIndexOf('\n') + 1;
    const whole = assembled.slice(0, cut);
    const partial = assembled.slice(cut).slice(-MAX_PENDING_CHARS);
    const block = whole ? st.open + whole : '';
    const language = st.language;
    const save = (next: Partial<ProcessInput>): void => void this.byProcess.set(id, { ...st, partial, ...next });
    if (language === 'shell' || language === 'other') {
      const session = { vars: new Map(st.vars), ...(st.cwd !== undefined ? { cwd: st.cwd } : {}) };
      return {
        language,
        text: block,
        session,
        commit: (unfinished) =>
          save({
            open: unfinished ? block.slice(-MAX_PENDING_CHARS) : whole ? '' : st.open,
            vars: session.vars,
            cwd: session.cwd,
          }),
      };
    }
    if (language === 'sql') {
      // A statement runs at its `;`; meta-commands (`\! …`) at their newline.
      const end = block.lastIndexOf(';') + 1;
      const meta = (l: string): boolean => /^\s*(\\|\.(shell|system)\s)/.test(l);
      const rest = block
        .slice(end)
        .split('\n')
        .filter((l) => !meta(l))
        .join('\n');
      const text = [block.slice(0, end), ...whole.split('\n').filter(meta)].filter(Boolean).join('\n');
      return { language, text, commit: () => save({ open: whole ? rest.slice(-MAX_PENDING_CHARS) : st.open }) };
    }
    const prefix = st.bindings.length ? `${st.bindings.join('\n')}\n` : '';
    return {
      language,
      text: whole ? prefix + whole : '',
      commit: () =>
        save({ bindings: [...st.bindings, ...whole.split('\n').filter((l) => binding.test(l))].slice(-MAX_BINDINGS) }),
    };
  }

  /** A process that ended takes its state with it. */
  forget(id: string): void {
    this.byProcess.delete(id);
  }
}
