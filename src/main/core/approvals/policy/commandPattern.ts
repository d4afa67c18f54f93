// The normalised form of a command, for "always allow" rules: the same command written with other spacing,
// quoting, escapes, comments or look-alike letters gives the same pattern.
import { normalizeCommandText } from './normalizeText.js';
import type { ShellNode, ShellParser } from './shellParser.js';
import { UNKNOWN } from './scanTypes.js';
import { evalWord } from './words.js';

const wordTypes = new Set(['word', 'string', 'raw_string', 'concatenation', 'ansi_c_string', 'number']);

function quote(s: string): string {
  if (s === '') return "''";
  return /^[\w@%+=:,./~-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

export function commandPattern(parser: ShellParser, command: string): string {
  const { text } = normalizeCommandText(command);
  const tree = parser.parse(text);
  try {
    const out: string[] = [];
    const env = { home: '~', cwd: undefined, vars: new Map<string, string>(), staticOutput: () => undefined };
    const visit = (n: ShellNode): void => {
      if (n.type === 'comment') return;
      if (wordTypes.has(n.type) && n.parent?.type !== 'concatenation') {
        const args = evalWord(n, env);
        if (args.every((a) => !a.value.includes(UNKNOWN))) {
          out.push(...args.map((a) => quote(a.value)));
          return;
        }
      }
      if (n.childCount === 0 || n.type === 'heredoc_body') {
        if (n.text.trim()) out.push(n.type === '\n' ? ';' : n.text.trim());
        return;
      }
      for (const child of n.children) visit(child);
    };
    visit(tree.rootNode);
    return out
      .join(' ')
      .replace(/\s*;\s*(;\s*)*/g, ' ; ')
      .replace(/( ; )+$/, '')
      .trim();
  } finally {
    tree.delete();
  }
}
