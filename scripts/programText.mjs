// The shell and awk programs beside the modules that run them (`import program from './warmCall.sh'`) load as their
// text: esbuild's loader for the bundles (build.mjs, bench/bundle.mjs), a Vite plugin for vitest and electron-vite.
// src/programText.d.ts types the imports.

/** esbuild's `loader` option. */
export const programTextLoader = { '.sh': 'text', '.awk': 'text' };

/** A Vite plugin: a .sh or .awk module's default export is the file's text. */
export const programTextPlugin = {
  name: 'program-text',
  enforce: 'pre',
  transform(code, id) {
    if (!/\.(sh|awk)$/.test(id)) return undefined;
    return { code: `export default ${JSON.stringify(code)};`, map: null };
  },
};
