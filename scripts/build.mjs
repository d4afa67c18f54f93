// Builds everything `npm start`, `switchboard` and the tests run: the CLI/Core bundle, the renderer, Electron's main
// and preload.
import { build as esbuild } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { programTextLoader } from './programText.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv[2];
const started = Date.now();

/**
 * esbuild, each output written whole to a temporary file and renamed into place: a Core or a CLI command that starts
 * while a build runs (a test suite builds while other tests start `serve`) reads the old bundle or the new one, never
 * the first half of one ("SyntaxError: Unexpected token" from a bundle cut short).
 */
async function build(options) {
  const result = await esbuild({ ...options, write: false });
  for (const file of result.outputFiles) {
    mkdirSync(dirname(file.path), { recursive: true });
    const temp = `${file.path}.${process.pid}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  return result;
}

/** The Core runs under plain Node (docs/style.md §1): an `electron` import reaching this bundle fails the build. */
const noElectron = {
  name: 'no-electron-in-core',
  setup(b) {
    b.onResolve({ filter: /^electron(\/.*)?$/ }, (args) => ({
      errors: [
        {
          text:
            `${args.importer.replace(root + '/', '')} imports electron; only src/main/index.ts, ` +
            `preload.ts and transport/electron.ts may`,
        },
      ],
    }));
  },
};

/**
 * A core folder's index.ts re-exports its face (docs/architecture.md), so a bundle would take every file a face
 * names. Core's files are marked free of side effects on import (none has one another file relies on): a bundle takes
 * the files whose exports it uses, as when each was imported directly, and `switchboard call` stays small.
 */
const facesOnly = {
  name: 'faces-only',
  setup(b) {
    const core = join(root, 'src/main/core') + '/';
    b.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (args.pluginData === 'faces-only' || args.kind === 'entry-point') return undefined;
      const found = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'faces-only',
      });
      return found.errors.length || !found.path.startsWith(core) ? found : { ...found, sideEffects: false };
    });
  },
};

/** Modules that locate files through import.meta.url get the CommonJS equivalent. */
const importMetaShim = {
  define: { 'import.meta.url': '__sbImportMetaUrl' },
  banner: { js: "const __sbImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};

/**
 * What every bundle shares: CommonJS files in out/ (so CommonJS dependencies such as ssh2 keep their named exports),
 * and the shell and awk programs beside the modules that run them (warmCall.sh …) bundled in as their text.
 */
const cjs = {
  outdir: join(root, 'out'),
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  logLevel: 'warning',
  loader: programTextLoader,
};
/** Bundles that run under Node (the Core, Electron's main): dependencies stay in node_modules (node-pty is native). */
const nodeSide = {
  ...cjs,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  ...importMetaShim,
  sourcemap: true,
};

/**
 * The CLI's commands (src/main/cli/commandNames.ts): each is a bundle of its own, loaded by main.ts only when that
 * command runs, so `switchboard call` or `mcp` never loads the Core, ssh2, dockerode or node-pty. A bundle holds the
 * command, the program (program.ts) and the libraries they use: one file to read and compile instead of zod's hundred.
 * main.ts loads it through a V8 code cache (src/main/cli/bundleLoader.ts).
 */
const commandNames = JSON.parse(
  /commandNames = (\[[^\]]*\])/
    .exec(readFileSync(join(root, 'src/main/cli/commandNames.ts'), 'utf8'))[1]
    .replaceAll("'", '"')
    .replace(/,\s*\]$/, ']'),
);
/** Libraries a client bundle leaves in node_modules: native or locating files beside themselves, or the backends'. */
const clientExternal = [
  'web-tree-sitter',
  'tree-sitter-bash',
  'tree-sitter-python',
  'tree-sitter-javascript',
  'bufferutil',
  'utf-8-validate',
  'node-pty',
  'ssh2',
  'cpu-features',
  'dockerode',
  'docker-modem',
  'ssh-config',
  'tar-stream',
];
/** In a client bundle, `ws` is the CLI's own small WebSocket client (src/main/cli/tinyWebSocket.ts says why). */
const tinyWebSocket = {
  name: 'tiny-websocket',
  setup(b) {
    b.onResolve({ filter: /^ws$/ }, () => ({ path: join(root, 'src/main/cli/tinyWebSocket.ts') }));
  },
};
/** In the bundles, the MCP SDK's Ajv validator is src/main/core/mcp/noSchemaValidator.ts (that file says why). */
const noSchemaValidator = {
  name: 'no-schema-validator',
  setup(b) {
    b.onResolve({ filter: /(^@modelcontextprotocol\/sdk\/validation\/ajv|\/ajv-provider\.js)$/ }, () => ({
      path: join(root, 'src/main/core/mcp/noSchemaValidator.ts'),
    }));
  },
};
/**
 * In the Core's bundle, the MCP SDK's converter of zod 3 schemas (zod-to-json-schema, which loads zod's v3 copy from
 * node_modules at the first MCP request, a MB the Core then holds): the Core's tools are zod 4 schemas it converts
 * itself (src/main/core/mcp/mcpServer.ts). Should anything hand the SDK a zod 3 schema, it says so.
 */
const noZod3Converter = {
  name: 'no-zod3-converter',
  setup(b) {
    b.onResolve({ filter: /^zod-to-json-schema$/ }, () => ({ path: 'zod-to-json-schema', namespace: 'sb-no-zod3' }));
    b.onLoad({ filter: /.*/, namespace: 'sb-no-zod3' }, () => ({
      loader: 'js',
      contents:
        'export function zodToJsonSchema() {\n' +
        "  throw new Error('a zod 3 schema reached the MCP SDK; Switchboard declares its tools with zod 4');\n}\n",
    }));
  },
};
/**
 * In `switchboard mcp`'s bundle (src/main/cli/bridge/mcpBridge.ts), what the MCP SDK's stdio and Streamable HTTP
 * transports load is cut to what the bridge runs: the SDK's types (its zod schemas) and its OAuth code are stand-ins
 * (sdkTypes.ts, sdkAuth.ts), `Headers` is the bridge's own (plainHeaders.ts), so neither zod nor undici loads, and the
 * event-stream parser loads with the first event stream (lazyEventSource.ts). Each file says what it saves.
 */
const bridgeStandIns = {
  name: 'bridge-stand-ins',
  setup(b) {
    const standIns = {
      '../types.js': 'sdkTypes.ts',
      './auth.js': 'sdkAuth.ts',
      'eventsource-parser/stream': 'lazyEventSource.ts',
    };
    b.onResolve({ filter: /^(\.\.?\/(types|auth)\.js|eventsource-parser\/stream)$/ }, (args) => {
      const file = standIns[args.path];
      if (!file || !args.importer.includes('/@modelcontextprotocol/sdk/dist/')) return undefined;
      return { path: join(root, 'src/main/cli/bridge', file) };
    });
  },
};
/**
 * `sb-command:NAME`, the entry of command NAME's bundle: what main.ts expects of it (program.ts's runProgram, the
 * adder).
 */
const commandEntry = {
  name: 'command-entry',
  setup(b) {
    b.onResolve({ filter: /^sb-command:/ }, (args) => ({
      path: args.path.slice('sb-command:'.length),
      namespace: 'sb-command',
    }));
    b.onLoad({ filter: /.*/, namespace: 'sb-command' }, (args) => ({
      resolveDir: join(root, 'src/main/cli'),
      loader: 'ts',
      contents:
        `export * from './commands/${args.path}.js';\nexport { ${args.path}Command as addCommand } from ` +
        `'./commands/${args.path}.js';\nexport { runProgram } from './program.js';\n`,
    }));
  },
};

/**
 * Whitespace and syntax minified (names kept): a smaller file to read, hash and hold, and without comments it is
 * ASCII, which V8 holds at one byte a character (one em dash in a comment doubles the whole source in memory).
 */
const minified = { minifyWhitespace: true, minifySyntax: true };

/**
 * The bundles a Core runs from are ASCII (see `minified`): a non-ASCII character esbuild leaves as it is (in a regular
 * expression, say) fails the build, naming where it is, rather than doubling what the Core holds of its source.
 */
function assertAscii(file) {
  const text = readFileSync(file, 'utf8');
  const at = text.search(/[^\x00-\x7f]/);
  if (at >= 0)
    throw new Error(
      `${file.replace(root + '/', '')} is not ASCII at offset ${at} ` +
        `(${JSON.stringify(text.slice(Math.max(0, at - 40), at + 20))}); ` +
        'write the character as an escape in the source',
    );
}
/**
 * The packages the Core bundles in: pure JavaScript it loads at start anyway, and the MCP SDK (run only from the first
 * MCP request on, but bundled so that it comes without Ajv).
 */
const coreInlined = ['zod', 'yaml', 'ws', 'commander', 'ssh-config', '@modelcontextprotocol/sdk'];
/** Every package import stays a require of node_modules except those of `packages`, which are bundled in. */
const inlineOnly = (packages) => ({
  name: 'inline-only',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || args.namespace === 'sb-command') return undefined;
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      return packages.includes(name) ? undefined : { path: args.path, external: true };
    });
  },
});

async function buildNode() {
  // The code caches of the last build's bundles (src/main/cli/bundleLoader.ts) describe code that is about to change.
  for (const dir of [join(root, 'out/cli/commands'), join(root, 'out/cli')]) {
    const caches = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.v8cache')) : [];
    for (const name of caches) rmSync(join(dir, name), { force: true });
  }
  // The Core: the libraries it loads at start bundled in (zod's hundred files cost the idle Core megabytes), the rest
  // (backends, the MCP SDK for the first MCP request, the shell parser) loaded from node_modules when first used.
  await build({
    ...nodeSide,
    ...minified,
    packages: undefined,
    entryPoints: { 'cli/commands/serve': 'sb-command:serve' },
    plugins: [facesOnly, noElectron, commandEntry, noSchemaValidator, noZod3Converter, inlineOnly(coreInlined)],
  });
  assertAscii(join(root, 'out/cli/commands/serve.cjs'));
  const clients = commandNames.filter((n) => n !== 'serve');
  await build({
    ...nodeSide,
    ...minified,
    packages: undefined,
    external: clientExternal,
    entryPoints: Object.fromEntries(clients.map((n) => [`cli/commands/${n}`, `sb-command:${n}`])),
    plugins: [facesOnly, noElectron, commandEntry, tinyWebSocket, noSchemaValidator],
  });
  // The MCP bridge, which the launcher runs for `switchboard mcp` (and the mcp command's bundle for a longer form).
  await build({
    ...nodeSide,
    ...minified,
    packages: undefined,
    entryPoints: { 'cli/mcpBridge': join(root, 'src/main/cli/bridge/mcpBridge.ts') },
    inject: [join(root, 'src/main/cli/bridge/plainHeaders.ts')],
    plugins: [facesOnly, noElectron, bridgeStandIns],
  });
  // The launcher.
  await build({
    ...nodeSide,
    entryPoints: { 'cli/main': join(root, 'src/main/cli/main.ts') },
    plugins: [facesOnly, noElectron],
  });
  // The sandbox helper, run by the Core inside a target's sandbox (src/main/core/sandbox/sandboxFiles.ts finds it).
  await build({
    ...nodeSide,
    entryPoints: { 'sandbox-helper/helper': join(root, 'src/main/core/sandbox/helper/helperMain.ts') },
    plugins: [facesOnly, noElectron],
  });
  // The plugin host, forked by the Core once per enabled plugin (src/main/core/plugins/pluginHost.ts finds it here).
  await build({
    ...nodeSide,
    entryPoints: { 'plugin-host/host': join(root, 'src/main/core/plugins/hostProcess.ts') },
    plugins: [facesOnly, noElectron],
  });
}

function buildRenderer() {
  execFileSync(
    process.execPath,
    [
      join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--config',
      join(root, 'src/renderer/vite.config.ts'),
      '--logLevel',
      'warn',
    ],
    { cwd: root, stdio: 'inherit' },
  );
}

async function buildElectron() {
  // Electron's main process, with electron itself external.
  // Minified as the Core's bundle for serve is, and for the same reason (assertAscii).
  await build({
    ...nodeSide,
    ...minified,
    entryPoints: { 'main/index': join(root, 'src/main/index.ts') },
    external: ['electron'],
    plugins: [facesOnly],
  });
  assertAscii(join(root, 'out/main/index.cjs'));
  // The preload runs sandboxed, where `require` knows only 'electron' (and a few polyfills): everything else is
  // bundled in, and nothing may require Node modules.
  await build({
    ...cjs,
    entryPoints: { 'preload/preload': join(root, 'src/main/preload.ts') },
    platform: 'browser',
    target: 'chrome120',
    external: ['electron'],
    sourcemap: 'inline',
  });
  const preload = readFileSync(join(root, 'out/preload/preload.cjs'), 'utf8');
  const required = [...preload.matchAll(/require\(["']([^"']+)["']\)/g)]
    .map((m) => m[1])
    .filter((r) => r !== 'electron');
  if (required.length)
    throw new Error(`the sandboxed preload requires ${required.join(', ')}; it may require only electron`);
}

try {
  if (!only || only === 'node') await buildNode();
  if (!only || only === 'renderer') buildRenderer();
  if (!only || only === 'electron') await buildElectron();
} catch (err) {
  // esbuild and vite have printed what failed; a stack trace of the build script would only bury it.
  console.error(`build failed${err instanceof Error && !('errors' in err) ? `: ${err.message}` : ''}`);
  process.exit(1);
}
console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)}s`);
