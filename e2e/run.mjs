#!/usr/bin/env node
// Builds the CLI and the renderer, then runs the end-to-end specs (Chromium driving `switchboard serve`). Extra
// arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const step = (args) => {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
step([join(root, 'scripts/build.mjs')]);
step([join(root, 'node_modules/vitest/vitest.mjs'), 'run', 'e2e', ...process.argv.slice(2)]);
