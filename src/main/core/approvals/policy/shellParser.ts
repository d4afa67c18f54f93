// Loads tree-sitter's bash grammar (WASM) once; parsing after that is synchronous.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

export type { Node as ShellNode, Tree as ShellTree };

export interface ShellParser {
  /** Parses `text` as bash; the caller deletes the tree when done. */
  parse(text: string): Tree;
}

let loading: Promise<ShellParser> | undefined;

/** One parser per process: the grammar is WASM, and compiling it is the slowest step of loading the policy. */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= (async () => {
    // V8 compiles WASM twice: at once with its baseline compiler (Liftoff), then the whole module again with its
    // optimizing one in the background. For this grammar that second pass is about a second of CPU on a small
    // machine, taken from the agent's first calls, and parses run no faster for it (0.11 vs 0.27 ms a command
    // here): the baseline code is kept. Read when a module is compiled; this is the process's only WASM.
    setFlagsFromString('--liftoff-only');
    await Parser.init();
    const bash = await loadGrammar('tree-sitter-bash/tree-sitter-bash.wasm');
    const parser = new Parser();
    parser.setLanguage(bash);
    return {
      parse(text: string): Tree {
        const tree = parser.parse(text);
        if (!tree) throw new Error('the bash parser returned no tree');
        return tree;
      },
    };
  })();
  return loading;
}

/**
 * A grammar's WASM from its package, handed to tree-sitter as bytes: given a path, web-tree-sitter reads it through a
 * dynamic import(), which starts Node's ES module loader in the Core (a few MB it then holds) for that one read.
 */
export async function loadGrammar(wasmPath: string): Promise<Language> {
  return Language.load(await readFile(createRequire(import.meta.url).resolve(wasmPath)));
}

/** The first error or missing node in a tree, for the reason a parse failed. */
export function firstError(node: Node): Node | undefined {
  if (node.type === 'ERROR' || node.isMissing) return node;
  for (const child of node.children) {
    if (child.hasError || child.isMissing || child.type === 'ERROR') {
      const found = firstError(child);
      if (found) return found;
    }
  }
  return undefined;
}
