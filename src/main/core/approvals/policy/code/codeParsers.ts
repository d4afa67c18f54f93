// tree-sitter's Python and JavaScript grammars (WASM), each loaded once per process, after the bash one (the runtime is
// started by loadShellParser, and a second Parser.init would replace the module the bash parser lives in). A policy
// may hold them before it is returned, or load each when a judgement first meets code in its language: a Core whose
// agents run no inline Python or JavaScript never holds those grammars (their code, a few MB).
import { Parser, type Node, type Tree } from 'web-tree-sitter';
import { loadGrammar, loadShellParser } from '../shellParser.js';

export type { Node as CodeNode, Tree as CodeTree };

/** The languages judged on their syntax tree; perl, ruby and php stay on the text rules. */
export type ParsedLanguage = 'python' | 'node';

const parsedLanguages: readonly ParsedLanguage[] = ['python', 'node'];

const wasmOf: Record<ParsedLanguage, string> = {
  python: 'tree-sitter-python/tree-sitter-python.wasm',
  node: 'tree-sitter-javascript/tree-sitter-javascript.wasm',
};

export interface CodeParsers {
  /** Whether `lang`'s grammar is loaded. Where it is not, the language is noted as wanted (see `wanted`). */
  has(lang: ParsedLanguage): boolean;
  /** Parses `text` in a language `has` said is loaded; the caller deletes the tree when done. */
  parse(text: string, lang: ParsedLanguage): Tree;
  /** Languages `has` found not loaded since the set was last cleared: the policy's judgement says them. */
  readonly wanted: Set<ParsedLanguage>;
}

/** The process's parsers, one per language, once its grammar is loaded. */
const parsers: Partial<Record<ParsedLanguage, Parser>> = {};
const loading: Partial<Record<ParsedLanguage, Promise<void>>> = {};

/** Whether the process has loaded `lang`'s grammar (a test reads it). */
export const grammarLoaded = (lang: ParsedLanguage): boolean => parsers[lang] !== undefined;

/** Loads these grammars, each once per process: its WASM is compiled as it loads (README, Speed). */
export function loadGrammars(langs: Iterable<ParsedLanguage>): Promise<void> {
  return Promise.all(
    [...langs].map(
      (lang) =>
        (loading[lang] ??= (async () => {
          await loadShellParser();
          const language = await loadGrammar(wasmOf[lang]);
          const parser = new Parser();
          parser.setLanguage(language);
          parsers[lang] = parser;
        })().catch((err: unknown) => {
          // The next judgement that wants it tries again, and until then the code asks (see codeRules).
          delete loading[lang];
          throw err;
        })),
    ),
  ).then(() => undefined);
}

/** Parsers for what the process has loaded; `all` loads both grammars before it resolves. */
export async function loadCodeParsers(all = true): Promise<CodeParsers> {
  await (all ? loadGrammars(parsedLanguages) : loadShellParser());
  const wanted = new Set<ParsedLanguage>();
  return {
    wanted,
    has(lang) {
      if (parsers[lang]) return true;
      wanted.add(lang);
      return false;
    },
    parse(text, lang) {
      const parser = parsers[lang];
      if (!parser) throw new Error(`the ${lang} grammar is not loaded`);
      const tree = parser.parse(text);
      if (!tree) throw new Error(`the ${lang} parser returned no tree`);
      return tree;
    },
  };
}
