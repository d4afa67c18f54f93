// A program and its arguments written as one line (`zsh -l`, `bash --login`, `'/opt/my shell/fish'`), split into words
// the way a shell splits them, without a shell: no variables, globs, pipes or redirections. A pane's shell is started
// from these words directly, so what a shell would expand is refused here, where it is typed, not at the pane.

/** Characters a shell gives a meaning to and this splitter does not: quoted, they are plain text. */
const SHELL_SYNTAX = /[$`;&|<>(){}*?[\]!#]/;

const WITHOUT_SHELL = 'is a program and its arguments, started without a shell';

export type CommandWords = { ok: true; words: [string, ...string[]] } | { ok: false; problem: string };

/** Words of `text`: blanks separate them, '…' and "…" keep blanks and specials, a backslash keeps what follows. */
export function splitCommandWords(text: string): CommandWords {
  if (/[\r\n\0]/.test(text)) return { ok: false, problem: 'is one line: a program and its arguments' };
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return { ok: false, problem: `has a ${c} without its closing ${c}` };
      let quoted = text.slice(i + 1, end);
      // Inside double quotes a backslash keeps only what a shell lets it keep there.
      if (c === '"') {
        if (/[$`]/.test(quoted.replace(/\\[\s\S]/g, '')))
          return { ok: false, problem: "is started without a shell: $ and ` are not expanded (quote them with '…')" };
        quoted = quoted.replace(/\\([$`"\\])/g, '$1');
      }
      word = (word ?? '') + quoted;
      i = end;
    } else if (c === '\\') {
      if (i + 1 >= text.length) return { ok: false, problem: 'ends with a lone \\' };
      word = (word ?? '') + text[++i];
    } else if (SHELL_SYNTAX.test(c)) {
      return {
        ok: false,
        problem: `${WITHOUT_SHELL}: ${c} means nothing here (quote it to pass it)`,
      };
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  const [program, ...args] = words;
  if (program === undefined || program === '') return { ok: false, problem: 'names no program' };
  return { ok: true, words: [program, ...args] };
}
