#!/usr/bin/env node
// Launches the built CLI; tells the user how to build it when it is missing.
// CommonJS (bin/package.json says so): an ES module entry would start Node's ES module loader for a process that
// runs only CommonJS bundles, which costs every command about 2 MB and a few milliseconds.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const main = join(__dirname, '..', 'out', 'cli', 'main.cjs');
if (!existsSync(main)) {
  process.stderr.write('switchboard: not built yet — run `npm run build` in the Switchboard folder\n');
  process.exit(1);
}
require(main);
