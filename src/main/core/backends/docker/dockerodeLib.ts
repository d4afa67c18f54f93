// dockerode, loaded when a Docker target is first used, without what its require would load for calls the Core never
// makes: gRPC and protobufjs for BuildKit sessions (`buildImage` with a session), ssh2 for `ssh://` engines (the Core
// speaks plain HTTP to a socket or a TCP port, dockerEndpoint.ts). Those modules stay on disk until something calls
// them; they cost a Core megabytes it would hold for good.
import { createRequire } from 'node:module';
import Module from 'node:module';
import type Docker from 'dockerode';

const load = createRequire(import.meta.url);

/**
 * Modules that export one function, each stood in for by one that loads the real module at its first call: `request`
 * inside the package at `path` (docker-modem as dockerode itself resolves it).
 */
const deferred: { path: string[]; request: string }[] = [
  { path: ['dockerode'], request: './lib/session.js' },
  { path: ['dockerode', 'docker-modem'], request: './lib/ssh.js' },
];

let dockerode: typeof Docker | undefined;

export function loadDockerode(): typeof Docker {
  if (dockerode) return dockerode;
  for (const { path, request } of deferred) deferModule(path, request);
  dockerode = load('dockerode') as typeof Docker;
  return dockerode;
}

/**
 * Puts a stand-in for `request` in the require cache, before the package's own require of it runs. A package laid out
 * otherwise (another version) is left alone: it then loads as it always did.
 */
function deferModule(path: string[], request: string): void {
  let file: string;
  try {
    let from = load;
    for (const name of path) from = createRequire(from.resolve(`${name}/package.json`));
    file = from.resolve(request);
  } catch {
    // Expected only with another version of the package, whose layout this does not know: nothing is deferred.
    return;
  }
  if (load.cache[file]) return;
  let real: ((...args: unknown[]) => unknown) | undefined;
  const standIn = new Module(file);
  standIn.filename = file;
  standIn.loaded = true;
  standIn.exports = function deferred(this: unknown, ...args: unknown[]): unknown {
    if (!real) {
      // The stand-in leaves the cache, so that this require reads the real file.
      delete load.cache[file];
      real = load(file) as (...a: unknown[]) => unknown;
    }
    return real.apply(this, args);
  };
  load.cache[file] = standIn;
}
