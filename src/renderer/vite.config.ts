// Builds the renderer into out/renderer with relative asset paths, so Electron can load it from file:// and serve from
// any path.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  // The app icon (assets/icon.svg, icon.png) is served beside index.html.
  publicDir: join(here, '../../assets'),
  build: {
    outDir: join(here, '../../out/renderer'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
});
