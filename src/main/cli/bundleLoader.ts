// Loads a CLI bundle as a CommonJS module through V8's code cache kept beside it, so a command starts without first
// compiling its whole bundle (Node 20 has no compile cache of its own: module.enableCompileCache is Node 22+).
import { readFileSync, renameSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import vm from 'node:vm';

/**
 * A cache file starts with the identity of the bundle it was made from (its size, modification and change times and
 * inode, as four doubles), then V8's data. V8 checks its own version and flags but, of the source, only the length: a
 * rebuilt bundle of the same length must not run the old one's bytecode. Rebuilding writes the bundle anew, so its
 * identity changes; hashing the bundle's whole text on every start cost more than the stat. Written as they are, not
 * hashed: loading node:crypto costs a start a few milliseconds.
 */
const IDENTITY_BYTES = 32;
/** A long-running command (serve) saves its cache this long after start; a one-shot command saves it at exit. */
const SAVE_AFTER_MS = 1000;

type ModuleWrapper = (
  this: unknown,
  exports: unknown,
  require: NodeJS.Require,
  module: Module,
  filename: string,
  dirname: string,
) => void;

/** The exports of the CommonJS bundle `file` (an absolute path), loaded once per process like `require(file)`. */
export function loadBundle(file: string): unknown {
  const requireHere = createRequire(file);
  const known = requireHere.cache[file];
  if (known) return known.exports;
  const source = readFileSync(file, 'utf8');
  // A bundle that imports at run time (serve: the ES-only conf) is required as usual: functions V8 restores from a
  // code cache lose the script's dynamic-import callback on Node 20 ("A dynamic import callback was not specified"),
  // and the callback vm offers instead is experimental (it prints a warning).
  if (source.includes('import(')) return requireHere(file);
  const st = statSync(file);
  const id = identity(st);
  const cacheFile = `${file}.v8cache`;
  const cachedData = readCache(cacheFile, id);
  const script = new vm.Script(Module.wrap(source), {
    filename: file,
    cachedData,
  });
  // Registered before it runs, as require() does, so that the process's module list (require.cache) names the bundle.
  const mod = new Module(file);
  mod.filename = file;
  mod.paths = requireHere.resolve.paths('.') ?? [];
  requireHere.cache[file] = mod;
  try {
    (script.runInThisContext() as ModuleWrapper).call(mod.exports, mod.exports, requireHere, mod, file, dirname(file));
  } catch (err) {
    delete requireHere.cache[file];
    throw err;
  }
  mod.loaded = true;
  if (cachedData === undefined || script.cachedDataRejected) saveCache(script, cacheFile, id);
  return mod.exports;
}

function identity(st: Stats): Buffer {
  const id = Buffer.alloc(IDENTITY_BYTES);
  [st.size, st.mtimeMs, st.ino, st.ctimeMs].forEach((n, i) => id.writeDoubleLE(n, i * 8));
  return id;
}

function readCache(cacheFile: string, id: Buffer): Buffer | undefined {
  try {
    const data = readFileSync(cacheFile);
    return data.subarray(0, IDENTITY_BYTES).equals(id) ? data.subarray(IDENTITY_BYTES) : undefined;
  } catch {
    // no cache yet, or unreadable: the bundle is compiled without one
    return undefined;
  }
}

/**
 * Saves V8's data for `script` once: at exit or SAVE_AFTER_MS after start, whichever is first, so that it holds the
 * functions the command compiled while it ran, not only the bundle's top level. Written whole and renamed into place,
 * so a process starting meanwhile reads the old cache or the new one, never half of one.
 */
function saveCache(script: vm.Script, cacheFile: string, id: Buffer): void {
  let saved = false;
  const save = (): void => {
    if (saved) return;
    saved = true;
    const temp = `${cacheFile}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, Buffer.concat([id, script.createCachedData()]));
      renameSync(temp, cacheFile);
    } catch {
      // A read-only install runs without a cache: each start compiles, as plain require() would.
      rmSync(temp, { force: true });
    }
  };
  process.once('exit', save);
  setTimeout(save, SAVE_AFTER_MS).unref();
}
