// `npm start`: the Electron app where it can run; otherwise says why and serves the UI to a browser instead.
import { coreProcessEnv } from './coreProcessEnv.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The installed Electron executable, found without `require('electron')`, which would try to download it. */
function electronBinary() {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = join(process.env.ELECTRON_OVERRIDE_DIST_PATH, process.platform === 'win32' ? 'electron.exe' : 'electron');
    return existsSync(p) ? p : undefined;
  }
  let dir;
  try {
    dir = dirname(require.resolve('electron/package.json'));
  } catch {
    return undefined;
  }
  const pathFile = join(dir, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const p = join(dir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(p) ? p : undefined;
}

function whyNotElectron() {
  const bin = electronBinary();
  if (!bin)
    return (
      'the Electron binary is not installed (node_modules/electron has no dist; ' +
      'run `npx install-electron` where downloads work)'
    );
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)
    return 'there is no display (DISPLAY is not set)';
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0)
    return `Electron does not start: ${(probe.stderr || probe.error?.message || '').split('\n')[0]}`;
  return undefined;
}

// Build first, in this process, so `npm start` is a single command whose signals reach us directly.
const build = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const reason = whyNotElectron();
const child = reason
  ? (console.log(
      `Switchboard: not starting the desktop window because ${reason}; serving the UI to a browser instead.`,
    ),
    spawn(process.execPath, [join(root, 'bin/switchboard.js'), 'serve', ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: coreProcessEnv(),
    }))
  : spawn(electronBinary(), [join(root, 'out/main/index.cjs'), ...process.argv.slice(2)], {
      stdio: 'inherit',
      env: coreProcessEnv(),
    });
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
// Whoever started us (npm, an IDE's stop button) may die without passing a signal on: then stop the app too,
// so no orphaned Core keeps its port and core.json.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) child.kill('SIGTERM');
}, 1000).unref();
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
