import { describe, expect, it } from 'vitest';
import { splitCommandWords } from './commandWords.js';

describe('splitCommandWords', () => {
  it.each([
    ['zsh -l', ['zsh', '-l']],
    ['fish', ['fish']],
    ['  bash   --login  ', ['bash', '--login']],
    ["'/opt/my shell/fish' -i", ['/opt/my shell/fish', '-i']],
    ['"/opt/my shell/zsh"', ['/opt/my shell/zsh']],
    ['bash --rcfile a\\ b', ['bash', '--rcfile', 'a b']],
    ["sh -c 'echo $0; exec bash'", ['sh', '-c', 'echo $0; exec bash']],
    ['pre"fix"\'post\'', ['prefixpost']],
    ['tmux new -A -s "\\$work"', ['tmux', 'new', '-A', '-s', '$work']],
    ['~/bin/fish', ['~/bin/fish']],
  ])('%s', (text, words) => {
    expect(splitCommandWords(text)).toEqual({ ok: true, words });
  });

  it.each([
    ['', 'names no program'],
    ['   ', 'names no program'],
    ["''", 'names no program'],
    ['zsh -l; rm -rf /', '; means nothing here'],
    ['zsh | tee log', '| means nothing here'],
    ['$SHELL -l', '$ means nothing here'],
    ['bash "$HOME/x"', '$ and ` are not expanded'],
    ['fish *', '* means nothing here'],
    ["zsh 'unclosed", "' without its closing '"],
    ['zsh "unclosed', '" without its closing "'],
    ['zsh \\', 'lone \\'],
    ['zsh\n-l', 'one line'],
  ])('refuses %j', (text, problem) => {
    const r = splitCommandWords(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.problem).toContain(problem);
  });
});
