// The plugin host process (built to out/plugin-host/host.cjs, forked by the Core, one per plugin): loads one plugin and
// serves hostMethods.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  DeclaredFlags,
  hostMethods,
  type HostMessage,
  type HostMethod,
  HostRequest,
  type HostParams,
  type HostResult,
  type ProviderDeclaration,
} from '../../../shared/pluginRpc.js';
import { ZodError } from 'zod';
import { fieldInfos, SpecFieldInfo } from '../../../shared/specFields.js';
import type { PluginBackendProvider, PluginContext, PluginEnvironment, PluginStream } from '../../../shared/plugins.js';

const providers = new Map<string, PluginBackendProvider>();
const environments = new Map<string, PluginEnvironment>();
const streams = new Map<string, PluginStream>();
let logFile: string | undefined;

function send(message: HostMessage): void {
  process.send?.(message);
}

function log(message: string): void {
  const line = `${new Date().toISOString()} ${message.replace(/\s+/g, ' ').slice(0, 2000)}\n`;
  try {
    if (logFile) appendFileSync(logFile, line);
  } catch {
    /* a log line is not worth failing a call */
  }
}

function provider(backend: string): PluginBackendProvider {
  const p = providers.get(backend);
  if (!p) throw new Error(`no backend named ${backend} in this plugin`);
  return p;
}

function environment(id: string): PluginEnvironment {
  const e = environments.get(id);
  if (!e) throw new Error('the environment is gone (the plugin host restarted)');
  return e;
}

function stream(id: string): PluginStream {
  const s = streams.get(id);
  if (!s) throw new Error('the stream has ended');
  return s;
}

/** What one provider declares, checked here so that a malformed declaration fails the load with a clear line. */
function declaration(p: PluginBackendProvider): ProviderDeclaration {
  const own = (p.fields ?? []).filter((f) => f.key !== 'cwd' && f.key !== 'timeout');
  const where = `backend ${p.name}`;
  const fields = fieldInfos(own)
    .slice(0, own.length)
    .map((f) => {
      const parsed = SpecFieldInfo.safeParse(f);
      if (!parsed.success) throw new Error(`${where}: field ${String(f.key)}: ${errorLine(parsed.error)}`);
      return parsed.data;
    });
  const flags = DeclaredFlags.safeParse(p.flags ?? {});
  if (!flags.success) {
    const issue = flags.error.issues[0];
    const unknown = issue?.code === 'unrecognized_keys' ? `unknown flag "${issue.keys[0]}"` : errorLine(flags.error);
    throw new Error(`${where}: flags: ${unknown}`);
  }
  if (p.flags_for !== undefined && typeof p.flags_for !== 'function')
    throw new Error(`${where}: flags_for is not a function`);
  if (p.probe !== undefined && typeof p.probe !== 'function') throw new Error(`${where}: probe is not a function`);
  return {
    name: p.name,
    display_name: p.display_name || p.name,
    fields,
    exactly_one: p.exactly_one ?? [],
    flags: flags.data,
    ...(p.flags_for ? { flags_for: true } : {}),
    ...(typeof p.probe === 'function' ? { probe: true } : {}),
  };
}

function watch(id: string, s: PluginStream): void {
  streams.set(id, s);
  s.on_data((data) => send({ event: 'stream.data', stream_id: id, data: String(data) }));
  s.on_exit((code, reason) => {
    streams.delete(id);
    send({
      event: 'stream.exit',
      stream_id: id,
      exit_code: typeof code === 'number' ? Math.trunc(code) : null,
      ...(reason ? { reason: String(reason) } : {}),
    });
  });
}

type Served = { [M in HostMethod]: (p: HostParams<M>) => Promise<HostResult<M>> };

const served: Served = {
  // Answered as soon as this event loop is free: a plugin that blocks it (a busy loop, a long sync call) misses beats.
  ping: async () => ({}),
  load: async (p) => {
    // data_dir is plugins/.data/<name>; the log sits in plugins/ (where the Core sends this process's output too).
    logFile = join(dirname(dirname(p.data_dir)), '.host.log');
    mkdirSync(p.data_dir, { recursive: true });
    const mod = (await import(pathToFileURL(resolve(p.dir, p.entry)).href)) as {
      register?: unknown;
      default?: { register?: unknown };
    };
    const register = typeof mod.register === 'function' ? mod.register : mod.default?.register;
    if (typeof register !== 'function') throw new Error(`${p.entry} exports no register(ctx) function`);
    const registered: PluginBackendProvider[] = [];
    const ctx: PluginContext = {
      registerBackendProvider: (provider) => {
        if (!provider || typeof provider.name !== 'string' || typeof provider.create_environment !== 'function') {
          throw new Error('registerBackendProvider needs an object with a name and create_environment');
        }
        registered.push(provider);
      },
      plugin: { name: p.name, version: p.version, dir: p.dir, data_dir: p.data_dir },
      log: (message) => log(`${p.name}: ${message}`),
    };
    await (register as (ctx: PluginContext) => unknown)(ctx);
    const declared = registered.map(declaration);
    for (const r of registered) providers.set(r.name, r);
    return { providers: declared };
  },
  is_available: async (p) => Boolean(await (provider(p.backend).is_available?.() ?? true)),
  check_requirements: async (p) => (await provider(p.backend).check_requirements?.(p.spec)) ?? [],
  flags_for: async (p) => {
    const flags = DeclaredFlags.safeParse((await provider(p.backend).flags_for?.(p.spec)) ?? {});
    if (!flags.success) throw new Error(`backend ${p.backend}: flags_for: ${errorLine(flags.error)}`);
    return flags.data;
  },
  doctor_checks: async (p) => (await provider(p.backend).doctor_checks?.()) ?? [],
  create_environment: async (p) => {
    const env = await provider(p.backend).create_environment({
      cwd: p.cwd,
      timeout: p.timeout,
      runtime_identity: p.runtime_identity,
      spec: p.spec,
      secrets: p.secrets ?? {},
    });
    environments.set(p.env_id, env);
    return {
      home: typeof env.home === 'function',
      open_shell: typeof env.open_shell === 'function',
      spawn_background: typeof env.spawn_background === 'function',
      read_file: typeof env.read_file === 'function',
      write_file: typeof env.write_file === 'function',
      stat: typeof env.stat === 'function',
      probe: typeof env.probe === 'function',
      cleanup: typeof env.cleanup === 'function',
    };
  },
  exec: async (p) => {
    const r = await environment(p.env_id).exec(p.command, {
      cwd: p.cwd,
      timeout_ms: p.timeout_ms,
      ...(p.env ? { env: p.env } : {}),
      ...(p.stdin !== undefined ? { stdin: p.stdin } : {}),
    });
    return {
      output: String(r.output ?? ''),
      exit_code: Number.isInteger(r.exit_code) ? r.exit_code : 1,
      ...(r.timed_out ? { timed_out: true } : {}),
    };
  },
  home: async (p) => String(await environment(p.env_id).home!()),
  open_shell: async (p) => {
    watch(
      p.stream_id,
      await environment(p.env_id).open_shell!({
        cwd: p.cwd,
        cols: p.cols,
        rows: p.rows,
        ...(p.env ? { env: p.env } : {}),
      }),
    );
    return {};
  },
  spawn_background: async (p) => {
    watch(
      p.stream_id,
      await environment(p.env_id).spawn_background!(p.command, { cwd: p.cwd, ...(p.env ? { env: p.env } : {}) }),
    );
    return {};
  },
  'stream.write': async (p) => {
    stream(p.stream_id).write(p.data);
    return {};
  },
  'stream.resize': async (p) => {
    stream(p.stream_id).resize?.(p.cols, p.rows);
    return {};
  },
  'stream.kill': async (p) => {
    await streams.get(p.stream_id)?.kill();
    return {};
  },
  'file.read': async (p) => ({
    base64: Buffer.from(await environment(p.env_id).read_file!(p.path, p.max_bytes)).toString('base64'),
  }),
  'file.write': async (p) => {
    await environment(p.env_id).write_file!(p.path, Buffer.from(p.base64, 'base64'));
    return {};
  },
  'file.stat': async (p) => environment(p.env_id).stat!(p.path),
  probe: async (p) => environment(p.env_id).probe!(),
  probe_target: async (p) => {
    const probe = provider(p.backend).probe;
    if (!probe) throw new Error(`backend ${p.backend} has no probe`);
    return probe(p.spec, p.secrets ?? {});
  },
  cleanup: async (p) => {
    const env = environments.get(p.env_id);
    environments.delete(p.env_id);
    await env?.cleanup?.(p.reason);
    return {};
  },
};

function errorLine(err: unknown): string {
  // A declaration that does not fit the contract: say where, not zod's JSON.
  if (err instanceof ZodError) {
    const issue = err.issues[0];
    return `${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`;
  }
  const text = err instanceof Error ? err.message : String(err);
  return (text.split('\n')[0] ?? '').slice(0, 500) || 'failed';
}

async function handle(raw: unknown): Promise<void> {
  const req = HostRequest.safeParse(raw);
  if (!req.success) return;
  const { id, method } = req.data;
  try {
    if (!(method in hostMethods)) throw new Error(`unknown method ${method}`);
    const m = method as HostMethod;
    const params = hostMethods[m].params.parse(req.data.params);
    const result = await (served[m] as (p: unknown) => Promise<unknown>)(params);
    send({ id, ok: true, result: hostMethods[m].result.parse(result) });
  } catch (err) {
    send({ id, ok: false, error: errorLine(err) });
  }
}

process.on('message', (raw) => void handle(raw));
// A plugin's stray rejection or throw is logged, not fatal: its other calls go on.
process.on('unhandledRejection', (err) => log(`unhandled rejection: ${errorLine(err)}`));
process.on('uncaughtException', (err) => log(`uncaught exception: ${errorLine(err)}`));
// The Core is gone: nothing is left to serve.
process.on('disconnect', () => process.exit(0));
