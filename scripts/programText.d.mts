// Types of programText.mjs, for vitest.config.ts and electron.vite.config.ts.
import type { Plugin } from 'vite';
export declare const programTextLoader: Record<string, 'text'>;
export declare const programTextPlugin: Plugin;
