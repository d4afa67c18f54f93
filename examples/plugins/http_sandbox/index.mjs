// Switchboard backend plugin "http_sandbox": every target is a sandbox behind an HTTP JSON API (create, exec, read
// and write files, delete), as cloud sandbox vendors offer them. Remote and without streams: no panes, commands only.
// @ts-check

/** @typedef {import('../../../src/shared/plugins.js').PluginContext} PluginContext */
/** @typedef {import('../../../src/shared/plugins.js').PluginBackendProvider} PluginBackendProvider */
/** @typedef {import('../../../src/shared/plugins.js').PluginEnvironment} PluginEnvironment */
/** @typedef {import('../../../src/shared/plugins.js').PluginFileStat} PluginFileStat */
/** @typedef {{ api_url: string; token_env: string }} HttpSandboxSpec */
/** @typedef {{ id: string; home: string }} Sandbox */

/** @type {import('../../../src/shared/specFields.js').SpecFieldDecl[]} */
const fields = [
  {
    key: 'api_url',
    type: 'string',
    label: 'API URL',
    help: 'the sandbox service, e.g. https://sandbox.example.com',
    required: true,
    placeholder: 'https://sandbox.example.com',
    pattern: '^https?://[^\\s]+$',
    pattern_message: 'api_url must start with http:// or https://',
  },
  {
    key: 'token_env',
    type: 'secret_ref',
    label: 'Token variable',
    required: true,
    placeholder: 'SANDBOX_API_TOKEN',
    help: 'the name of the environment variable that holds the API token (never the token itself)',
  },
];

/** How long a request may take beyond the command's own deadline (network, sandbox start). */
const SLACK_MS = 30_000;

/**
 * The token: the value of the variable `token_env` names, which Switchboard hands over in `secrets` (the plugin host
 * has no credentials in its own environment). A clear error without it.
 * @param {HttpSandboxSpec} spec @param {Record<string, string>} secrets
 */
function tokenOf(spec, secrets) {
  const token = secrets[spec.token_env];
  if (!token)
    throw new Error(`http_sandbox: the environment variable ${spec.token_env} (token_env) is not set for Switchboard`);
  return token;
}

/**
 * One API call. Errors carry the service's one-line message and the HTTP status, never the token.
 * @param {HttpSandboxSpec & { token: () => string }} spec @param {string} method @param {string} path
 * @param {{ body?: unknown; timeout_ms?: number }} [o]
 * @returns {Promise<any>}
 */
async function api(spec, method, path, o = {}) {
  const url = `${spec.api_url.replace(/\/+$/, '')}${path}`;
  let res;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${spec.token()}`,
        ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(o.body !== undefined ? { body: JSON.stringify(o.body) } : {}),
      signal: AbortSignal.timeout(o.timeout_ms ?? SLACK_MS),
    });
  } catch (err) {
    const e = /** @type {Error & { cause?: { code?: string; message?: string } }} */ (err);
    if (e.message.startsWith('http_sandbox:')) throw e;
    throw new Error(`http_sandbox: ${spec.api_url} did not answer (${e.cause?.code ?? e.cause?.message ?? e.message})`);
  }
  const text = await res.text();
  /** @type {any} */
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    const why = typeof body?.error === 'string' ? body.error : `HTTP ${res.status}`;
    const err = /** @type {Error & { status?: number }} */ (
      new Error(`http_sandbox: ${method} ${path.split('?')[0]}: ${why}`)
    );
    err.status = res.status;
    throw err;
  }
  if (body === undefined) throw new Error(`http_sandbox: ${method} ${path.split('?')[0]}: the answer is not JSON`);
  return body;
}

/** @param {PluginContext} ctx */
export function register(ctx) {
  /** @type {PluginBackendProvider} */
  const provider = {
    name: 'http_sandbox',
    display_name: 'HTTP sandbox',
    fields,
    flags: { is_remote: true, supports_streams: false, supports_pty: false },

    is_available: () => typeof fetch === 'function',

    check_requirements(spec) {
      const s = /** @type {HttpSandboxSpec} */ (spec);
      return /^https?:\/\//.test(s.api_url) ? [] : [`api_url: ${s.api_url} is not an http(s) URL`];
    },

    doctor_checks: () => [
      { name: 'HTTP client', ok: typeof fetch === 'function', detail: `Node ${process.versions.node}` },
    ],

    // The health checks' look at a target: is the service there and does it take the token? One GET, and no
    // sandbox is created (the service may bill per sandbox; the window looks at every target about once a minute).
    async probe(spec, secrets) {
      const s = {
        .../** @type {HttpSandboxSpec} */ (spec),
        token: () => tokenOf(/** @type {HttpSandboxSpec} */ (spec), secrets),
      };
      try {
        await api(s, 'GET', '/v1/health', { timeout_ms: 5_000 });
        return { ok: true, detail: s.api_url };
      } catch (err) {
        return { ok: false, problem: /** @type {Error} */ (err).message };
      }
    },

    create_environment({ runtime_identity, spec, secrets }) {
      const s = {
        .../** @type {HttpSandboxSpec} */ (spec),
        token: () => tokenOf(/** @type {HttpSandboxSpec} */ (spec), secrets),
      };
      /** @type {Promise<Sandbox> | undefined} */
      let sandbox;
      // One sandbox per runtime identity, named after it: asking again (after a restart) finds the same one.
      const ready = () => {
        sandbox ??= api(s, 'POST', '/v1/sandboxes', { body: { name: runtime_identity } }).then((b) => {
          ctx.log(`sandbox ${b.id} for ${runtime_identity}`);
          return /** @type {Sandbox} */ ({ id: b.id, home: b.home });
        });
        // A failed create is not remembered: the next call tries again.
        sandbox.catch(() => (sandbox = undefined));
        return sandbox;
      };
      const at = async (/** @type {string} */ suffix) =>
        `/v1/sandboxes/${encodeURIComponent((await ready()).id)}${suffix}`;
      const q = (/** @type {string} */ path) => `?path=${encodeURIComponent(path)}`;

      /** @type {PluginEnvironment} */
      const environment = {
        async exec(command, opts) {
          const r = await api(s, 'POST', await at('/exec'), {
            body: {
              command,
              cwd: opts.cwd,
              timeout_ms: opts.timeout_ms,
              ...(opts.env ? { env: opts.env } : {}),
              ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
            },
            timeout_ms: opts.timeout_ms + SLACK_MS,
          });
          return {
            output: String(r.output ?? ''),
            exit_code: Number(r.exit_code ?? -1),
            ...(r.timed_out ? { timed_out: true } : {}),
          };
        },
        home: async () => (await ready()).home,
        async read_file(path, max_bytes) {
          const r = await api(s, 'GET', `${await at('/files')}${q(path)}&max_bytes=${max_bytes}`);
          return new Uint8Array(Buffer.from(String(r.content_base64), 'base64'));
        },
        async write_file(path, data) {
          await api(s, 'PUT', `${await at('/files')}${q(path)}`, {
            body: { content_base64: Buffer.from(data).toString('base64') },
          });
        },
        async stat(path) {
          const r = await api(s, 'GET', `${await at('/stat')}${q(path)}`);
          return /** @type {PluginFileStat} */ ({ type: r.type, size: Number(r.size ?? 0) });
        },
        async probe() {
          try {
            await api(s, 'GET', '/v1/health', { timeout_ms: 10_000 });
            await api(s, 'GET', await at(''), { timeout_ms: 10_000 });
            return { ok: true, detail: s.api_url };
          } catch (err) {
            return { ok: false, problem: /** @type {Error} */ (err).message };
          }
        },
        async cleanup(reason) {
          // Idle and shutdown keep the sandbox (the identity may come back); a removed target deletes it.
          if (reason !== 'removed' || !sandbox) return;
          const id = (await sandbox.catch(() => undefined))?.id;
          sandbox = undefined;
          if (id)
            await api(s, 'DELETE', `/v1/sandboxes/${encodeURIComponent(id)}`).catch(
              (/** @type {Error & { status?: number }} */ err) => {
                if (err.status !== 404) throw err;
              },
            );
        },
      };
      return environment;
    },
  };
  ctx.registerBackendProvider(provider);
}
