#!/usr/bin/env node
// Launches the built CLI; tells the user how to build it when it is missing.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'out', 'cli', 'main.cjs');
if (!existsSync(main)) {
  process.stderr.write('switchboard: not built yet — run `npm run build` in the Switchboard folder\n');
  process.exit(1);
}
await import(pathToFileURL(main).href);
