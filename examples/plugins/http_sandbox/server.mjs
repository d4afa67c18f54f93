// Reference server for the http_sandbox plugin: the HTTP JSON API a cloud sandbox vendor offers, on loopback only,
// behind a bearer token. Each sandbox is a temp folder; commands run there with sh. It isolates nothing — it is
// for tests and for reading the API, not for untrusted code.
//
//   POST   /v1/sandboxes                  {name}                       → {id, name, home}   (same name: same sandbox)
//   GET    /v1/sandboxes/:id                                           → {id, name, home}
//   DELETE /v1/sandboxes/:id                                           → {deleted: true}
//   POST   /v1/sandboxes/:id/exec         {command, cwd, timeout_ms, env?, stdin?} → {output, exit_code, timed_out}
//   GET    /v1/sandboxes/:id/files?path=P&max_bytes=N                  → {content_base64}
//   PUT    /v1/sandboxes/:id/files?path=P {content_base64}             → {bytes_written}
//   GET    /v1/sandboxes/:id/stat?path=P                               → {type, size}
//   GET    /v1/health                                                  → {ok: true}
// Errors are {error: "one line"} with 400, 401, 404 or 500.
// @ts-check
import { spawn } from 'node:child_process';
import { timingSafeEqual, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, stat, writeFile, open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const MAX_BODY = 32 * 1024 * 1024;

class HttpError extends Error {
  constructor(/** @type {number} */ status, /** @type {string} */ message) {
    super(message);
    this.status = status;
  }
}

/** @param {import('node:http').IncomingMessage} req @returns {Promise<Record<string, unknown>>} */
async function jsonBody(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > MAX_BODY) throw new HttpError(400, 'body too large');
    chunks.push(chunk);
  }
  if (size === 0) return {};
  try {
    const v = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (v && typeof v === 'object' && !Array.isArray(v)) return v;
  } catch {
    // Fall through.
  }
  throw new HttpError(400, 'body is not a JSON object');
}

function absolutePath(/** @type {string | null} */ p) {
  if (!p || !isAbsolute(p)) throw new HttpError(400, 'path must be absolute');
  return p;
}

/** Runs `sh -c command` in cwd; the whole process group is killed at the deadline. */
function run(
  /** @type {{ command: string; cwd: string; timeout_ms: number; env?: Record<string, string>; stdin?: string;
   *   home: string }} */ o,
) {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', o.command], {
      cwd: o.cwd,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: o.home, LANG: 'C.UTF-8', ...o.env },
    });
    let output = '';
    let timedOut = false;
    const take = (/** @type {Buffer} */ b) => void (output += b.toString('utf8'));
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }, o.timeout_ms);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ output: `${output}${err.message}\n`, exit_code: 127, timed_out: false });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ output, exit_code: timedOut ? 124 : (code ?? (signal ? 137 : 1)), timed_out: timedOut });
    });
    // A child that exits before reading its stdin: EPIPE is expected, its exit says what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(o.stdin ?? '');
  });
}

/**
 * Starts the server on 127.0.0.1.
 * @param {{ token: string; port?: number; root?: string }} opts `root`: where sandbox folders go (a new temp folder).
 * @returns {Promise<{ url: string; close(): Promise<void>; sandboxes: Map<string, { id: string; name: string; home:
 * string }> }>}
 */
export async function startServer(opts) {
  if (!opts.token) throw new Error('a token is required');
  const root = opts.root ?? mkdtempSync(join(tmpdir(), 'sb-http-sandbox-'));
  /** @type {Map<string, { id: string; name: string; home: string }>} */
  const sandboxes = new Map();
  const expected = Buffer.from(`Bearer ${opts.token}`);

  const authorized = (/** @type {string | undefined} */ header) => {
    const got = Buffer.from(header ?? '');
    return got.length === expected.length && timingSafeEqual(got, expected);
  };

  const sandboxOf = (/** @type {string} */ id) => {
    const s = sandboxes.get(id);
    if (!s) throw new HttpError(404, `no sandbox ${id}`);
    return s;
  };

  /** @returns {Promise<unknown>} */
  async function route(/** @type {import('node:http').IncomingMessage} */ req) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const parts = url.pathname.split('/').filter(Boolean);
    if (parts[0] !== 'v1') throw new HttpError(404, 'no such endpoint');
    if (!authorized(req.headers.authorization)) throw new HttpError(401, 'missing or wrong bearer token');
    if (parts[1] === 'health' && req.method === 'GET') return { ok: true };
    if (parts[1] !== 'sandboxes') throw new HttpError(404, 'no such endpoint');
    if (parts.length === 2 && req.method === 'POST') {
      const body = await jsonBody(req);
      const name = typeof body.name === 'string' && body.name ? body.name : randomBytes(6).toString('hex');
      const existing = [...sandboxes.values()].find((s) => s.name === name);
      if (existing) return existing;
      const id = `sbx_${randomBytes(8).toString('hex')}`;
      const home = join(root, id);
      await mkdir(home, { recursive: true });
      const sandbox = { id, name, home };
      sandboxes.set(id, sandbox);
      return sandbox;
    }
    const sandbox = sandboxOf(parts[2] ?? '');
    const action = parts[3];
    if (!action && req.method === 'GET') return sandbox;
    if (!action && req.method === 'DELETE') {
      sandboxes.delete(sandbox.id);
      rmSync(sandbox.home, { recursive: true, force: true });
      return { deleted: true };
    }
    if (action === 'exec' && req.method === 'POST') {
      const b = await jsonBody(req);
      if (typeof b.command !== 'string') throw new HttpError(400, 'command must be a string');
      const cwd = typeof b.cwd === 'string' ? absolutePath(b.cwd) : sandbox.home;
      const timeout = typeof b.timeout_ms === 'number' && b.timeout_ms > 0 ? b.timeout_ms : 60_000;
      const env = b.env && typeof b.env === 'object' ? /** @type {Record<string, string>} */ (b.env) : undefined;
      return run({
        command: b.command,
        cwd,
        timeout_ms: timeout,
        home: sandbox.home,
        ...(env ? { env } : {}),
        ...(typeof b.stdin === 'string' ? { stdin: b.stdin } : {}),
      });
    }
    if (action === 'files' && req.method === 'GET') {
      const path = absolutePath(url.searchParams.get('path'));
      const max = Number(url.searchParams.get('max_bytes') ?? MAX_BODY);
      const fh = await open(path, 'r').catch((/** @type {NodeJS.ErrnoException} */ err) => {
        throw new HttpError(err.code === 'ENOENT' ? 404 : 400, `${path}: ${err.code ?? err.message}`);
      });
      try {
        const buf = Buffer.alloc(Math.min(max, MAX_BODY));
        const { bytesRead } = await fh.read(buf, 0, buf.length, 0).catch((/** @type {NodeJS.ErrnoException} */ err) => {
          throw new HttpError(400, `${path}: ${err.code ?? err.message}`);
        });
        return { content_base64: buf.subarray(0, bytesRead).toString('base64') };
      } finally {
        await fh.close();
      }
    }
    if (action === 'files' && req.method === 'PUT') {
      const path = absolutePath(url.searchParams.get('path'));
      const b = await jsonBody(req);
      if (typeof b.content_base64 !== 'string') throw new HttpError(400, 'content_base64 must be a string');
      const data = Buffer.from(b.content_base64, 'base64');
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, data).catch((/** @type {NodeJS.ErrnoException} */ err) => {
        throw new HttpError(400, `${path}: ${err.code ?? err.message}`);
      });
      return { bytes_written: data.length };
    }
    if (action === 'stat' && req.method === 'GET') {
      const path = absolutePath(url.searchParams.get('path'));
      const st = await stat(path).catch(() => undefined);
      if (!st) return { type: 'missing', size: 0 };
      return { type: st.isFile() ? 'file' : st.isDirectory() ? 'directory' : 'other', size: st.size };
    }
    throw new HttpError(404, 'no such endpoint');
  }

  const server = createServer((req, res) => {
    route(req).then(
      (body) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      },
      (/** @type {Error & { status?: number }} */ err) => {
        res.writeHead(err.status ?? 500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: err.message.split('\n')[0] }));
      },
    );
  });
  await new Promise((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    sandboxes,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          if (!opts.root) rmSync(root, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}

// `node server.mjs [PORT]` with the token in HTTP_SANDBOX_TOKEN: prints the URL and serves until stopped.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const token = process.env.HTTP_SANDBOX_TOKEN;
  if (!token) {
    process.stderr.write('set HTTP_SANDBOX_TOKEN to the token clients must send\n');
    process.exit(2);
  }
  const s = await startServer({ token, port: Number(process.argv[2] ?? 0) });
  process.stdout.write(`http_sandbox reference server at ${s.url}\n`);
  const stop = () => void s.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
