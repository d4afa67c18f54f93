// electron-vite layout of the three bundles (main, preload, renderer). `npm run build` uses scripts/build.mjs,
// which produces the same out/ tree with esbuild + vite; this file keeps `electron-vite dev` working for UI work.
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { programTextPlugin } from './scripts/programText.mjs';

export default defineConfig({
  main: {
    plugins: [programTextPlugin],
    build: {
      outDir: 'out/main',
      rollupOptions: {
        input: resolve(__dirname, 'src/main/index.ts'),
        external: ['electron', 'node-pty', 'ssh2', 'dockerode', 'cpu-features'],
      },
    },
  },
  preload: {
    build: { outDir: 'out/preload', rollupOptions: { input: resolve(__dirname, 'src/main/preload.ts') } },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      outDir: resolve(__dirname, 'out/renderer'),
      rollupOptions: { input: resolve(__dirname, 'src/renderer/index.html') },
    },
  },
});
