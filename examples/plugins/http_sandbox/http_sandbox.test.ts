// The http_sandbox example plugin called directly, against its reference server on loopback: exec, files, token,
// lifecycle.
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PluginBackendProvider, PluginEnvironment } from '../../../src/shared/plugins.js';
import { loadPlugin, type LoadedPlugin } from '../testContext.js';
import { startServer } from './server.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const TOKEN_ENV = 'SB_TEST_HTTP_SANDBOX_TOKEN';
const token = `tok-${process.pid}-${Date.now()}`;
let server: Awaited<ReturnType<typeof startServer>>;
let plugin: LoadedPlugin;
let provider: PluginBackendProvider;

const spec = (extra: Record<string, unknown> = {}) => ({
  backend: 'http_sandbox',
  api_url: server.url,
  token_env: TOKEN_ENV,
  ...extra,
});
/** As the Core calls it: the variable token_env names is handed over in `secrets`, when it is set. */
const env = async (identity: string, extra: Record<string, unknown> = {}): Promise<PluginEnvironment> => {
  const s = spec(extra);
  const value = process.env[String(s.token_env)];
  return provider.create_environment({
    cwd: '~',
    timeout: 60,
    runtime_identity: identity,
    spec: s,
    secrets: value === undefined ? {} : { [String(s.token_env)]: value },
  });
};

beforeAll(async () => {
  process.env[TOKEN_ENV] = token;
  server = await startServer({ token });
  plugin = await loadPlugin(here);
  provider = plugin.providers[0]!;
});

afterAll(async () => {
  delete process.env[TOKEN_ENV];
  await server.close();
  plugin.dispose();
});

describe('http_sandbox plugin', () => {
  it('declares a remote backend without streams, with a required URL and a token variable', async () => {
    expect(plugin.providers.map((p) => p.name)).toEqual(['http_sandbox']);
    expect(provider.flags).toMatchObject({ is_remote: true, supports_streams: false, supports_pty: false });
    expect(provider.fields?.find((f) => f.key === 'token_env')).toMatchObject({ type: 'secret_ref', required: true });
    expect(await provider.is_available?.()).toBe(true);
    expect(await provider.check_requirements!(spec())).toEqual([]);
    expect(await provider.check_requirements!(spec({ api_url: 'ftp://x' }))).toEqual([
      'api_url: ftp://x is not an http(s) URL',
    ]);
  });

  it('runs commands in a sandbox of its own: cwd, exit code, stdin, env, deadline', async () => {
    const e = await env('run#1');
    const home = await e.home!();
    expect(existsSync(home)).toBe(true);
    const r = await e.exec('pwd; echo "$GREETING"; cat; exit 4', {
      cwd: home,
      timeout_ms: 30_000,
      env: { GREETING: 'hi' },
      stdin: 'in\n',
    });
    expect(r).toEqual({ output: `${home}\nhi\nin\n`, exit_code: 4 });
    const slow = await e.exec('echo started; sleep 53.17', { cwd: home, timeout_ms: 800 });
    expect(slow).toMatchObject({ timed_out: true, exit_code: 124, output: 'started\n' });
  });

  it('reads, writes and stats files; one sandbox per runtime identity, deleted on cleanup(removed)', async () => {
    const a = await env('files#1');
    const b = await env('files#2');
    const homeA = await a.home!();
    const homeB = await b.home!();
    expect(homeA).not.toBe(homeB);
    await a.write_file!(`${homeA}/dir/f.bin`, new Uint8Array([0, 1, 2, 255]));
    expect([...(await a.read_file!(`${homeA}/dir/f.bin`, 1024))]).toEqual([0, 1, 2, 255]);
    expect([...(await a.read_file!(`${homeA}/dir/f.bin`, 2))]).toEqual([0, 1]);
    expect(await a.stat!(`${homeA}/dir/f.bin`)).toEqual({ type: 'file', size: 4 });
    expect(await a.stat!(`${homeA}/dir`)).toMatchObject({ type: 'directory' });
    expect(await a.stat!(`${homeA}/nothing`)).toEqual({ type: 'missing', size: 0 });
    await expect(a.read_file!(`${homeA}/nothing`, 10)).rejects.toThrow(/http_sandbox: GET .*ENOENT/);
    expect((await a.exec('cat dir/f.bin | wc -c', { cwd: homeA, timeout_ms: 10_000 })).output.trim()).toBe('4');

    // The same identity asking again (a restarted Core) gets the same sandbox back.
    const again = await env('files#1');
    expect(await again.home!()).toBe(homeA);
    await a.cleanup!('idle');
    expect(existsSync(homeA)).toBe(true);
    await a.cleanup!('removed');
    expect(existsSync(homeA)).toBe(false);
    expect(await b.probe!()).toMatchObject({ ok: true });
    await b.cleanup!('removed');
  });

  it('sends the token from the named variable only, and says so when it is wrong, without echoing it', async () => {
    process.env.SB_TEST_WRONG_TOKEN = 'not-the-token';
    try {
      const e = await env('auth#1', { token_env: 'SB_TEST_WRONG_TOKEN' });
      const err = await e.exec('true', { cwd: '/', timeout_ms: 5000 }).catch((x: Error) => x);
      expect(String(err)).toContain('http_sandbox: POST /v1/sandboxes: missing or wrong bearer token');
      expect(String(err)).not.toContain('not-the-token');
      expect(await e.probe!()).toMatchObject({ ok: false });
    } finally {
      delete process.env.SB_TEST_WRONG_TOKEN;
    }
    const unset = await env('auth#2', { token_env: 'SB_TEST_NOT_SET_ANYWHERE' });
    await expect(unset.exec('true', { cwd: '/', timeout_ms: 5000 })).rejects.toThrow(
      'SB_TEST_NOT_SET_ANYWHERE (token_env) is not set',
    );
  });

  it('says which service did not answer', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const e = await env('down#1', { api_url: `http://127.0.0.1:${port}` });
    await expect(e.exec('true', { cwd: '/', timeout_ms: 5000 })).rejects.toThrow(
      `http_sandbox: http://127.0.0.1:${port} did not answer (ECONNREFUSED)`,
    );
  });

  it('the reference server listens on loopback only and refuses requests without the token', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${server.url}/v1/health`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'missing or wrong bearer token' });
  });
});
