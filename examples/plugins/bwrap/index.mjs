// Switchboard backend plugin "bwrap": each target is a bubblewrap sandbox on this machine — the host's files
// read-only, a private writable /workspace (and /tmp) per runtime identity, no network unless asked for.
// @ts-check
import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { WORKSPACE, bwrapArgs, hostRoot, loadPty, parseBind, runInBackground, runOnPty, runToEnd } from './sandbox.mjs';

/** @typedef {import('../../../src/shared/plugins.js').PluginContext} PluginContext */
/** @typedef {import('../../../src/shared/plugins.js').PluginBackendProvider} PluginBackendProvider */
/** @typedef {import('../../../src/shared/plugins.js').PluginEnvironment} PluginEnvironment */
/** @typedef {import('../../../src/shared/plugins.js').PluginDoctorCheck} PluginDoctorCheck */

/** The sandbox's spec, as its fields declare it. */
/** @typedef {{ binds?: string[]; share_network?: boolean }} BwrapSpec */

/** @type {import('../../../src/shared/specFields.js').SpecFieldDecl[]} */
const fields = [
  {
    key: 'binds',
    type: 'list',
    label: 'Read-write folders',
    help: 'host folders commands may change, one per line: PATH, or HOST_PATH:SANDBOX_PATH',
    placeholder: '/home/me/project:/project',
  },
  {
    key: 'share_network',
    type: 'boolean',
    label: 'Network',
    help: 'let commands reach the network (without it they have none)',
    default: false,
  },
];

/** The program's path on PATH, or undefined. */
function onPath(/** @type {string} */ program) {
  for (const dir of (process.env.PATH ?? '/usr/bin:/bin').split(delimiter)) {
    const path = join(dir, program);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

// Programs run without blocking: the plugin host answers the Core's heartbeat from this event loop, and a host
// that does not answer for a few seconds is taken for hung and restarted.
const run = promisify(execFile);

/** Can bwrap make a sandbox here? undefined when it can, else bwrap's own one-line reason. */
async function trySandbox() {
  try {
    await run('bwrap', ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', '--', 'true'], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    return undefined;
  } catch (err) {
    const e = /** @type {{ code?: unknown; stderr?: string; message: string }} */ (err);
    // Not started (no such program) or ended by the timeout: no exit status of its own to explain.
    if (typeof e.code !== 'number') return e.message.split('\n')[0];
    return (
      (e.stderr?.trim().split('\n').pop() || `bwrap exited with ${e.code}`) +
      ' (are unprivileged user namespaces allowed?)'
    );
  }
}

/** A folder name for a runtime identity: readable, and distinct for every identity. */
function slug(/** @type {string} */ identity) {
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 12);
  return `${identity.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40)}-${hash}`;
}

/** Removes a folder the sandbox filled, even where a command took its own write permission away. */
async function removeTree(/** @type {string} */ dir) {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch {
    // What chmod cannot fix, the second rm reports.
    await run('chmod', ['-R', 'u+rwX', dir]).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Paths inside the host's root that a sandbox must not see: every identity's folders and the Switchboard profile
 * (its data folder is `<profile>/plugins/.data/<name>`; the plugin host is not told the profile otherwise).
 */
function hiddenPaths(/** @type {string} */ dataDir, /** @type {string} */ sandboxes) {
  const paths = [sandboxes];
  const pluginsDir = dirname(dirname(dataDir));
  if (basename(dirname(dataDir)) === '.data' && basename(pluginsDir) === 'plugins') paths.push(dirname(pluginsDir));
  // A path under /tmp, /run, /dev or /proc is not the host's inside the sandbox anyway; covering it would only
  // create an empty folder there.
  return paths.filter((p) => existsSync(p) && !/^\/(tmp|run|dev|proc)(\/|$)/.test(p));
}

/** @param {PluginContext} ctx */
export function register(ctx) {
  const sandboxes = join(ctx.plugin.data_dir, 'sandboxes');
  /** @type {Promise<boolean> | undefined} */
  let available;

  /** @type {PluginBackendProvider} */
  const provider = {
    name: 'bwrap',
    display_name: 'Bubblewrap sandbox',
    fields,
    flags: {
      is_container: true,
      supports_streams: true,
      supports_pty: true,
      default_cwd: WORKSPACE,
      // The Core keeps a target's cwd and exported variables here; /tmp is the identity's own and outlives a command.
      cache_path_base: '/tmp/.switchboard',
    },

    // A target with read-write binds can change host folders: it is no sandbox to skip asking for.
    flags_for(spec) {
      const binds = /** @type {BwrapSpec} */ (spec).binds ?? [];
      return { skip_container_guards: binds.length === 0 };
    },

    is_available() {
      available ??=
        onPath('bwrap') === undefined ? Promise.resolve(false) : trySandbox().then((problem) => problem === undefined);
      return available;
    },

    check_requirements(spec) {
      const problems = [];
      for (const text of /** @type {BwrapSpec} */ (spec).binds ?? []) {
        const b = parseBind(text);
        if (!isAbsolute(b.host) || !isAbsolute(b.inside)) problems.push(`bind "${text}": both paths must be absolute`);
        else if (!existsSync(b.host)) problems.push(`bind "${text}": ${b.host} does not exist on this machine`);
        else if (b.inside === '/' || /^\/(proc|dev)(\/|$)/.test(b.inside))
          problems.push(`bind "${text}": ${b.inside} cannot be replaced`);
      }
      return problems;
    },

    async doctor_checks() {
      /** @type {PluginDoctorCheck[]} */
      const checks = [];
      const bwrap = onPath('bwrap');
      const version = bwrap
        ? await run(bwrap, ['--version'], { encoding: 'utf8', timeout: 10_000 }).then(
            (r) => r.stdout.trim(),
            () => '?',
          )
        : '';
      checks.push({
        name: 'bwrap installed',
        ok: bwrap !== undefined,
        detail: bwrap ? `${bwrap} (${version})` : 'install bubblewrap (apt install bubblewrap)',
      });
      if (bwrap) {
        const problem = await trySandbox();
        checks.push({
          name: 'can create a sandbox',
          ok: problem === undefined,
          ...(problem ? { detail: problem } : {}),
        });
      }
      const pty = await loadPty();
      checks.push({
        name: 'terminal panes (node-pty)',
        ok: pty !== undefined,
        ...(pty ? {} : { detail: 'node-pty not found: panes will fail; commands still run' }),
      });
      try {
        mkdirSync(sandboxes, { recursive: true });
        accessSync(sandboxes, constants.W_OK);
        checks.push({ name: 'workspace folder writable', ok: true, detail: sandboxes });
      } catch (err) {
        checks.push({
          name: 'workspace folder writable',
          ok: false,
          detail: `${sandboxes}: ${/** @type {Error} */ (err).message}`,
        });
      }
      return checks;
    },

    create_environment({ runtime_identity, spec }) {
      const s = /** @type {BwrapSpec} */ (spec);
      const dir = join(sandboxes, slug(runtime_identity));
      const workspace = join(dir, 'workspace');
      const tmp = join(dir, 'tmp');
      mkdirSync(workspace, { recursive: true });
      mkdirSync(tmp, { recursive: true });
      const root = hostRoot();
      const hide = hiddenPaths(ctx.plugin.data_dir, sandboxes);
      /** Kill functions of this environment's running processes. */
      const live = new Set(/** @type {(() => void)[]} */ ([]));

      const args = (
        /** @type {string} */ cwd,
        /** @type {Record<string, string> | undefined} */ env,
        /** @type {boolean} */ session,
        /** @type {string[]} */ argv,
      ) =>
        bwrapArgs(
          {
            root,
            workspace,
            tmp,
            hide,
            binds: s.binds ?? [],
            share_network: s.share_network === true,
            cwd,
            session,
            // The Core hands the variables commands get; the sandbox keeps its own home and terminal type.
            env: {
              PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
              LANG: 'C.UTF-8',
              ...env,
              HOME: WORKSPACE,
              TERM: session ? 'dumb' : 'xterm-256color',
            },
          },
          argv,
        );
      const shell = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

      /** @type {PluginEnvironment} */
      const environment = {
        exec: (command, opts) => runToEnd(args(opts.cwd, opts.env, true, ['/bin/sh', '-c', command]), opts, live),
        home: async () => WORKSPACE,
        spawn_background: async (command, opts) =>
          runInBackground(args(opts.cwd, opts.env, true, ['/bin/sh', '-c', command]), live),
        async open_shell(opts) {
          const pty = await loadPty();
          if (!pty)
            throw new Error('node-pty is not available to the plugin host, so the bwrap plugin cannot open a pane');
          return runOnPty(pty, args(opts.cwd, opts.env, false, [shell, '-i']), opts, live);
        },
        async probe() {
          const r = await runToEnd(
            args('/', undefined, true, ['/bin/sh', '-c', 'test -w /workspace']),
            { timeout_ms: 10_000 },
            live,
          ).catch((/** @type {Error} */ err) => ({ output: err.message, exit_code: -1 }));
          return r.exit_code === 0
            ? { ok: true, detail: `sandbox folder ${dir}` }
            : { ok: false, problem: r.output.trim().split('\n').pop() || `bwrap exited with ${r.exit_code}` };
        },
        async cleanup(reason) {
          for (const kill of live) kill();
          live.clear();
          if (reason === 'removed') await removeTree(dir);
        },
      };
      return environment;
    },
  };
  ctx.registerBackendProvider(provider);
}
