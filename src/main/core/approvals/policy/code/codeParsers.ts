// Loads tree-sitter's Python and JavaScript grammars (WASM) once, after the bash one: the runtime is started by
// loadShellParser, and a second Parser.init would replace the module the bash parser lives in.
import { createRequire } from 'node:module';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';
import { loadShellParser } from '../shellParser.js';

export type { Node as CodeNode, Tree as CodeTree };

/** The languages judged on their syntax tree; perl, ruby and php stay on the text rules. */
export type ParsedLanguage = 'python' | 'node';

export interface CodeParsers {
  /** Parses `text`; the caller deletes the tree when done. */
  parse(text: string, lang: ParsedLanguage): Tree;
}

let loading: Promise<CodeParsers> | undefined;

/** One parser per language per process: each grammar is WASM compiled at its first use (README, Speed). */
export function loadCodeParsers(): Promise<CodeParsers> {
  loading ??= (async () => {
    await loadShellParser();
    const resolve = createRequire(import.meta.url).resolve;
    const [python, javascript] = await Promise.all([
      Language.load(resolve('tree-sitter-python/tree-sitter-python.wasm')),
      Language.load(resolve('tree-sitter-javascript/tree-sitter-javascript.wasm')),
    ]);
    const parsers = { python: new Parser(), node: new Parser() };
    parsers.python.setLanguage(python);
    parsers.node.setLanguage(javascript);
    return {
      parse(text: string, lang: ParsedLanguage): Tree {
        const tree = parsers[lang].parse(text);
        if (!tree) throw new Error(`the ${lang} parser returned no tree`);
        return tree;
      },
    };
  })();
  return loading;
}
