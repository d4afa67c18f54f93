// A page is a person's only by the cookie a person link's one-time code bought. The link (serve's terminal,
// `--link-fd`, `switchboard open`) carries the code, never a lasting secret; the code is traded once, same-origin,
// from loopback, and the lasting secret is only ever in that trade's Set-Cookie: never in a URL (the page's socket
// carries the cookie), a response body, another header, core.json, stdout or a profile file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { request } from 'node:http';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import {
  cliPath,
  ensureBuilt,
  parsePersonLink,
  runCliAtTerminal,
  startServe,
  tempHome,
  tradeCode,
  type Served,
} from '../../../scripts/cliHarness.js';
import { personCookieHeader } from './personCookie.js';
import { connectCore } from './wsLink.js';

/** One HTTP request with the headers given as they are (Host and Origin too); the status, headers and body. */
function send(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers ?? {} }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: JSON.stringify(res.rawHeaders), body: body.trim() }),
      );
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** A page's socket (Origin set as a browser sets it), with the person's cookie when given; one call's answer. */
async function fromPage(served: Served, method: string, params: unknown, cookie?: string): Promise<string> {
  const wsUrl = `${served.url.replace('http', 'ws')}ws?token=${encodeURIComponent(served.token)}`;
  const origin = new URL(served.url).origin;
  const ws = new WebSocket(wsUrl, { headers: { origin, ...(cookie ? { cookie } : {}) } });
  await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
  ws.send(JSON.stringify({ type: 'call', id: 1, method, params }));
  const reply = await new Promise<{ ok: boolean; error?: { code: string; message: string } }>((resolve) =>
    ws.once('message', (m) => resolve(JSON.parse(String(m)))),
  );
  ws.close();
  return reply.ok ? 'ok' : `${reply.error!.code}: ${reply.error!.message}`;
}

/** Every file of a profile, as text. */
function profileText(home: string): string {
  return readdirSync(home, { recursive: true, withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => readFileSync(join(f.parentPath, f.name), 'latin1'))
    .join('\n');
}

/** A new person link from `switchboard open`, run at a terminal of the person's own (no browser to open here). */
async function openLink(home: string): Promise<{ url: string; token: string; code: string; shown: string }> {
  const r = await runCliAtTerminal(home, ['open', '--no-browser'], { DISPLAY: '', WAYLAND_DISPLAY: '' });
  expect(r.status, r.stdout).toBe(0);
  const line = /http:\/\/\S+#code=\S+/.exec(r.stdout)?.[0];
  expect(line, r.stdout).toBeDefined();
  return { ...parsePersonLink(line!)!, shown: r.stdout };
}

const decide = { id: 'nope', decision: 'approve' } as const;
const pastTheGate = /^bad_request: no pending approval nope/;

describe('the person link', () => {
  const home = tempHome('sb-person-');
  let served: Served;
  beforeAll(async () => {
    ensureBuilt();
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('carries a one-time code, spent once traded; no file of the profile holds the code or the secret', async () => {
    expect(served.openUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+#code=[\w-]{20,}$/);
    expect(served.openUrl).not.toContain(served.approver);
    const { code } = parsePersonLink(served.openUrl)!;
    const again = await tradeCode(served.url, served.token, code);
    expect([again.status, again.secret, JSON.parse(again.body)]).toEqual([
      403,
      undefined,
      {
        person: false,
        problem:
          'This link was already used or has expired: run `switchboard open` in a terminal of your own for a new one.',
      },
    ]);
    const kept = profileText(home);
    expect(kept).not.toContain(served.approver);
    expect(kept).not.toContain(code);
  });

  it("`switchboard open` at a person's terminal: a code that buys one session cookie, once", async () => {
    const link = await openLink(home);
    expect(link.shown).toMatch(/works once, within 2 minutes/);
    expect(link.token).toBe(served.token);
    const first = await tradeCode(link.url, link.token, link.code);
    expect(first.status).toBe(200);
    expect(first.secret).toMatch(/^[\w-]{32}$/);
    // The cookie: no script reads it, no other site's request carries it, nor any request for another path of this
    // host (an agent's server on another port), and it is gone with the browser's session.
    expect(first.home).toBe(served.home);
    expect(served.home).toMatch(/^\/p\/[\w-]{22}\/$/);
    expect(first.setCookie).toBe(
      `switchboard_person_${new URL(served.url).port}=${first.secret}; HttpOnly; SameSite=Strict; ` +
        `Path=${served.home.slice(0, -1)}`,
    );
    // The secret is in that header alone: not in the body, not in any other header.
    expect(first.body).not.toContain(first.secret!);
    expect(first.otherHeaders).not.toContain(first.secret!);
    expect(JSON.parse(first.body)).toEqual({ person: true, home: served.home });
    expect(first.otherHeaders).toMatch(/cache-control: no-store/);
    // A second trade of the same code buys nothing.
    const second = await tradeCode(link.url, link.token, link.code);
    expect([second.status, second.setCookie]).toEqual([403, undefined]);
    // The bought cookie makes the page's socket a person's.
    expect(await fromPage(served, 'approvals.decide', decide, personCookieHeader(served.url, first.secret!))).toMatch(
      pastTheGate,
    );
  });

  it('is traded only by the page: same origin, the right Host, the token, JSON, from loopback', async () => {
    const port = new URL(served.url).port;
    const url = `${served.url}person`;
    const origin = `http://127.0.0.1:${port}`;
    const good = { origin, authorization: `Bearer ${served.token}`, 'content-type': 'application/json' };
    const tries: Array<[string, Record<string, string>, string, number]> = [
      ['no Origin', { ...good, origin: '' }, '', 403],
      ['another Origin', { ...good, origin: 'http://evil.example' }, '', 403],
      ['another Host', { ...good, host: `evil.example:${port}` }, '', 403],
      ['no token', { ...good, authorization: '' }, '', 401],
      ['a wrong token', { ...good, authorization: 'Bearer wrong' }, '', 401],
      ['not JSON', { ...good, 'content-type': 'text/plain' }, '', 415],
      ['no code', good, '{}', 400],
      ['a wrong code', good, '{"code":"not-a-code-of-this-core"}', 403],
    ];
    for (const [what, headers, body, status] of tries) {
      const link = await openLink(home);
      const sent = Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== ''));
      const r = await send(url, { method: 'POST', headers: sent, body: body || JSON.stringify({ code: link.code }) });
      expect([what, r.status], r.body).toEqual([what, status]);
      expect(r.headers, what).not.toMatch(/set-cookie/i);
      // Refused before it was looked at, the code is still good for the page (the wrong one spent nothing either).
      expect((await tradeCode(served.url, served.token, link.code)).status, what).toBe(200);
    }
  });

  it('the secret is never in a URL: a page socket with it in the query is no person', async () => {
    const wsUrl = `${served.url.replace('http', 'ws')}ws?token=${served.token}&approver=${served.approver}`;
    const ws = new WebSocket(wsUrl, { headers: { origin: new URL(served.url).origin } });
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    ws.send(JSON.stringify({ type: 'call', id: 1, method: 'approvals.decide', params: decide }));
    const reply = await new Promise<{ ok: boolean; error?: { message: string } }>((resolve) =>
      ws.once('message', (m) => resolve(JSON.parse(String(m)))),
    );
    ws.close();
    expect(reply.error?.message).toMatch(/only a person may use approvals\.decide/);
  });

  it("makes the page a person's; without it (or with a wrong one) a person's methods are refused", async () => {
    const cookie = personCookieHeader(served.url, served.approver);
    expect(await fromPage(served, 'approvals.decide', decide, cookie)).toMatch(pastTheGate);
    expect(await fromPage(served, 'approvals.decide', decide)).toMatch(
      /^not_permitted: only a person may use approvals.decide: this page was not opened from a person link/,
    );
    const wrong = personCookieHeader(served.url, served.approver.slice(1) + 'x');
    expect(await fromPage(served, 'approvals.decide', decide, wrong)).toMatch(/^not_permitted/);
    // Another Core's cookie (another port of this host) is not this one's.
    const otherPort = `switchboard_person_${Number(new URL(served.url).port) + 1}=${served.approver}`;
    expect(await fromPage(served, 'approvals.decide', decide, otherPort)).toMatch(/^not_permitted/);
    expect(await fromPage(served, 'pane.open', { execution_target: 'local', cols: 80, rows: 24 })).toMatch(
      /^not_permitted: only a person may use pane.open/,
    );
    // What an agent may do, it may do without the link.
    expect(await fromPage(served, 'targets.list', {})).toBe('ok');
  });

  it("serves a person's page at its home by the cookie; nothing else tells it or carries the secret", async () => {
    const cookie = personCookieHeader(served.url, served.approver);
    const page = `${served.url.slice(0, -1)}${served.home}`;
    const token = { authorization: `Bearer ${served.token}` };
    const responses = [
      await send(page, { headers: { cookie } }),
      await send(`${page}person`, { headers: { cookie } }),
      await send(`${page}person`, { headers: token }),
      await send(`${served.url}?token=${served.token}`, { headers: { cookie } }),
      await send(`${served.url}s/${served.token}/`, { headers: { cookie } }),
      await send(`${served.url}person`, { headers: token }),
    ];
    // The page at its home (or 503 before the renderer is built); what it asks there with and without the cookie; the
    // link's redirect, the page under its token path, and /person at the root, for whoever has the token.
    expect(responses.map((r) => r.status)).toEqual([
      expect.toBeOneOf([200, 503]),
      200,
      200,
      302,
      expect.toBeOneOf([200, 503]),
      200,
    ]);
    expect(JSON.parse(responses[1]!.body)).toEqual({ person: true });
    expect(JSON.parse(responses[2]!.body)).toEqual({ person: false });
    for (const r of responses) expect(r.headers + r.body).not.toContain(served.approver);
    // Only a page that traded a code learns its home: whoever has the token is never told it.
    for (const r of responses.slice(2)) expect(r.headers + r.body).not.toContain(served.home);
    expect(readFileSync(join(home, 'core.json'), 'utf8')).not.toContain(served.home);
    // The cookie opens the home only: not the root, nor /mcp (whose clients send a bearer token).
    for (const path of ['', 'ws', 'mcp', 'person', `s/${served.token.slice(1)}x/`])
      expect((await send(`${served.url}${path}`, { headers: { cookie } })).status, path).toBe(401);
    // Without the cookie or the token: refused, and a browser's navigation is told how to get a link.
    for (const url of [served.url, page]) {
      expect((await send(url)).status).toBe(401);
      expect(await send(url, { headers: { 'sec-fetch-dest': 'document' } })).toMatchObject({
        status: 401,
        body: 'this page needs a link: run `switchboard open` in a terminal of your own for a new one',
      });
    }
  });

  it("a page's cookie is still the person's on the Core started again on the profile: no new link", async () => {
    const cookie = personCookieHeader(served.url, served.approver);
    const before = { url: served.url, home: served.home };
    await served.stop();
    served = await startServe(home);
    // Same port, token and home: the page dials the same address, its cookie goes with it.
    expect({ url: served.url, home: served.home }).toEqual(before);
    expect(await fromPage(served, 'approvals.decide', decide, cookie)).toMatch(pastTheGate);
    // A program acting as that page (connectCore sends the secret as the cookie) is the person's too.
    const { client, close } = await connectCore(
      `${served.url.replace('http', 'ws')}ws`,
      served.token,
      5000,
      served.approver,
    );
    try {
      await expect(client.call('approvals.decide', decide)).rejects.toThrow(/no pending approval nope/);
    } finally {
      close();
    }
  });
});

describe('serve on a terminal', () => {
  it('shows the person link on its terminal and prints only the address on stdout', async () => {
    ensureBuilt();
    const home = tempHome('sb-person-tty-');
    // `script` runs serve on a pty of its own (its controlling terminal) and copies what the terminal shows to a file;
    // serve's stdout goes to a pipe of the test's, as when a program keeps it.
    const dir = tempHome('sb-person-typescript-');
    const typescript = join(dir, 'terminal.txt');
    const command = `${process.execPath} ${cliPath} serve --port 0 > ${join(dir, 'stdout.txt')}`;
    const child = spawn('script', ['-qfec', command, typescript], {
      env: { ...process.env, SWITCHBOARD_HOME: home },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    try {
      let shown = '';
      for (let i = 0; i < 200 && !/#code=\S+/.test(shown); i++) {
        await new Promise((r) => setTimeout(r, 100));
        try {
          shown = readFileSync(typescript, 'utf8');
        } catch {
          /* not written yet */
        }
      }
      const link = parsePersonLink(/http:\/\/\S+#code=\S+/.exec(shown)?.[0] ?? '');
      expect(link, shown).toBeDefined();
      expect(shown).toMatch(/yours alone: it makes its page your window; it works once, within 2 minutes/);
      const stdout = readFileSync(join(dir, 'stdout.txt'), 'utf8');
      expect(stdout).toMatch(/^Switchboard is serving at http:\/\/127\.0\.0\.1:\d+\/\n$/);
      expect(stdout).not.toContain(link!.code);
      const token = (JSON.parse(readFileSync(join(home, 'core.json'), 'utf8')) as { token: string }).token;
      expect(stdout).not.toContain(token);
      // The code the terminal showed buys the person's cookie.
      expect((await tradeCode(link!.url, link!.token, link!.code)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(home, { recursive: true, force: true });
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
