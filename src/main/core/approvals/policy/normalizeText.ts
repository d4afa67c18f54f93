// Undoes the text-level disguises of a command (look-alike letters, zero-width characters, line continuations)
// while remembering where each character came from, so reasons can point into the original command.

/** The text to parse, and for each of its characters the offset it came from in the original. */
export interface NormalizedText {
  text: string;
  /** map[i] is the original offset of text[i]; map[text.length] is the original length. */
  map: number[];
}

/** Letters from other scripts that render like the ASCII letters command names and flags are made of. */
const confusables: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  с: 'c',
  ԁ: 'd',
  е: 'e',
  ё: 'e',
  һ: 'h',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  ԛ: 'q',
  ѕ: 's',
  т: 't',
  у: 'y',
  ԝ: 'w',
  х: 'x',
  г: 'r',
  А: 'A',
  В: 'B',
  С: 'C',
  Е: 'E',
  Н: 'H',
  І: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  О: 'O',
  Р: 'P',
  Ѕ: 'S',
  Т: 'T',
  Х: 'X',
  У: 'Y',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Armenian and Latin extensions
  օ: 'o',
  ս: 'u',
  հ: 'h',
  ı: 'i',
  ȷ: 'j',
  ɡ: 'g',
  ʀ: 'r',
  ᴍ: 'm',
  ᴅ: 'd',
  ꜱ: 's',
  ᴏ: 'o',
  // dashes and slashes that pass for `-` and `/`
  '\u2010': '-',
  '\u2011': '-',
  '\u2012': '-',
  '\u2013': '-',
  '\u2014': '-',
  '\u2015': '-',
  '\u2212': '-',
  '\u2215': '/',
  '\u2044': '/',
  '\u29f8': '/',
};

/** Characters that render as nothing; bash would keep them, a reader never sees them. */
const invisible = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]/;

/** ANSI escape sequences (colour codes pasted from a terminal) hide text in a rendering. */
const ansi = /^\u001b\[[0-9;?]*[ -/]*[@-~]/;

export function normalizeCommandText(src: string): NormalizedText {
  let text = '';
  const map: number[] = [];
  const push = (s: string, from: number): void => {
    for (const ch of s) {
      text += ch;
      map.push(from);
      if (ch.length === 2) map.push(from);
    }
  };
  let quote: "'" | '"' | undefined;
  let comment = false;
  for (let i = 0; i < src.length; ) {
    const cp = src.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const width = ch.length;
    if (ch === '\u001b') {
      const m = ansi.exec(src.slice(i, i + 32));
      if (m) {
        i += m[0].length;
        continue;
      }
    }
    if (invisible.test(ch)) {
      i += width;
      continue;
    }
    // Bash removes backslash-newline before it splits words, except inside single quotes and comments.
    if (ch === '\\' && src[i + 1] === '\n' && quote !== "'" && !comment) {
      i += 2;
      continue;
    }
    if (ch === '\\' && src[i + 1] === '\r' && src[i + 2] === '\n' && quote !== "'" && !comment) {
      i += 3;
      continue;
    }
    let out = ch;
    if (cp > 0x7f) out = confusables[ch] ?? ch.normalize('NFKC');
    // Track quoting just enough to know where a line continuation is literal.
    if (comment) {
      if (out === '\n') comment = false;
    } else if (quote === "'") {
      if (out === "'") quote = undefined;
    } else if (quote === '"') {
      if (out === '\\') {
        push(out, i);
        i += width;
        if (i < src.length) {
          const n = String.fromCodePoint(src.codePointAt(i)!);
          push(n, i);
          i += n.length;
        }
        continue;
      }
      if (out === '"') quote = undefined;
    } else if (out === '\\') {
      push(out, i);
      i += width;
      if (i < src.length) {
        const n = String.fromCodePoint(src.codePointAt(i)!);
        push(n, i);
        i += n.length;
      }
      continue;
    } else if (out === "'" || out === '"') {
      quote = out;
    } else if (out === '#' && (text.length === 0 || /\s/.test(text[text.length - 1]!))) {
      comment = true;
    }
    push(out, i);
    i += width;
  }
  map.push(src.length);
  return { text, map };
}
