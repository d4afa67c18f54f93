// The Core's sandbox proxy over a real unix socket, against real servers: HTTP (CONNECT and absolute-form) and
// SOCKS5, allowed and refused, curl through a bridge, malformed and hostile clients, and (as root) a destination in
// a network namespace of its own to show allow_hosts narrowing real traffic.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Bridges, startBridges } from './netBridge.js';
import {
  closedPort,
  curl,
  echoServer,
  exchange,
  httpServer,
  type Listening,
  readBytes,
  received,
  SOCKS_HELLO,
  socksOpen,
  socksRequest,
  tempDir,
} from './netHarness.js';
import {
  formatIpv6,
  NetProxy,
  type NetRules,
  originRequest,
  parseAbsoluteTarget,
  parseAuthority,
  parseHttpHead,
  parseSocksGreeting,
  parseSocksRequest,
} from './netProxy.js';

const dir = tempDir('netproxy-');
let echo: Listening;
let web: Listening;
let nowhere: number;
const names: Record<string, string[]> = {};
const lookup = async (host: string) => {
  const found = names[host];
  if (found) return found;
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};
const proxies: NetProxy[] = [];
let n = 0;
async function proxy(rules: NetRules, opts: { headTimeoutMs?: number } = {}): Promise<{ p: NetProxy; path: string }> {
  const path = join(dir, `p${n++}.sock`);
  const p = await NetProxy.listen(path, rules, { lookup, ...opts });
  proxies.push(p);
  return { p, path };
}

beforeAll(async () => {
  echo = await echoServer();
  web = await httpServer();
  nowhere = await closedPort();
  names.localhost = ['127.0.0.1'];
  names['db.test'] = ['::1'];
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await echo.close();
  await web.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the protocols, parsed', () => {
  it('an HTTP head: more, bad, ok', () => {
    expect(parseHttpHead(Buffer.from('CONNECT a:1 HTTP/1.1\r\nHost: a'))).toEqual({ state: 'more' });
    expect(parseHttpHead(Buffer.from('\x16\x03\x01'))).toMatchObject({ state: 'bad', status: 400 });
    expect(parseHttpHead(Buffer.from('GET /x\r\n'))).toMatchObject({ state: 'bad', why: 'malformed request line' });
    expect(parseHttpHead(Buffer.from('GET / HTTP/1.1\r\n bad: fold\r\n\r\n'))).toMatchObject({ status: 400 });
    expect(parseHttpHead(Buffer.from('GET / HTTP/1.1\r\nA: b\x00c\r\n\r\n'))).toMatchObject({ status: 400 });
    expect(parseHttpHead(Buffer.from(`GET / HTTP/1.1\r\nA: ${'x'.repeat(100)}`), 64)).toMatchObject({ status: 431 });
    const ok = parseHttpHead(Buffer.from('GET http://a/ HTTP/1.1\r\nHost: a\r\nX:  y \r\n\r\nBODY'));
    expect(ok).toEqual({
      state: 'ok',
      method: 'GET',
      target: 'http://a/',
      version: '1.1',
      headers: [
        ['Host', 'a'],
        ['X', 'y'],
      ],
      length: 43,
    });
  });

  it('authorities', () => {
    const cases: [string, number | undefined, object | undefined][] = [
      ['example.com:443', undefined, { host: 'example.com', port: 443 }],
      ['[::1]:22', undefined, { host: '::1', port: 22 }],
      ['example.com', undefined, undefined],
      ['example.com', 80, { host: 'example.com', port: 80 }],
      ['[::1]', 80, { host: '::1', port: 80 }],
      ['::1:22', undefined, undefined],
      ['a:0', undefined, undefined],
      ['a:65536', undefined, undefined],
      ['a:+1', undefined, undefined],
      ['a b:1', undefined, undefined],
      ['[nope]:1', undefined, undefined],
      ['[::1]x', 80, undefined],
      ['-a:1', undefined, undefined],
    ];
    for (const [text, def, want] of cases) expect([text, parseAuthority(text, def)]).toEqual([text, want]);
  });

  it('absolute-form targets and the request sent on', () => {
    expect(parseAbsoluteTarget('http://u:p@Example.com:8080/a?b#c')).toEqual({
      dest: { host: 'Example.com', port: 8080 },
      authority: 'Example.com:8080',
      path: '/a?b',
    });
    expect(parseAbsoluteTarget('http://[::1]?q')).toMatchObject({ dest: { host: '::1', port: 80 }, path: '/?q' });
    expect(parseAbsoluteTarget('https://a/')).toEqual({ error: 'an https:// URL goes through CONNECT' });
    expect(parseAbsoluteTarget('/index.html')).toMatchObject({ error: expect.stringContaining('this is a proxy') });
    const head = parseHttpHead(
      Buffer.from(
        'POST http://a/x HTTP/1.1\r\nHost: evil\r\nProxy-Authorization: Basic x\r\nProxy-Connection: keep-alive\r\n' +
          'Connection: keep-alive, X-Drop\r\nX-Drop: 1\r\nTransfer-Encoding: chunked\r\nUpgrade: h2c\r\n' +
          'X-Keep: 2\r\n\r\n',
      ),
    );
    if (head.state !== 'ok') throw new Error('head not parsed');
    expect(originRequest(head, 'a', '/x')).toBe(
      'POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nX-Keep: 2\r\nConnection: close\r\n\r\n',
    );
  });

  it('SOCKS5 greetings and requests', () => {
    expect(parseSocksGreeting(Buffer.from([5]))).toEqual({ state: 'more' });
    expect(parseSocksGreeting(Buffer.from([5, 2, 0]))).toEqual({ state: 'more' });
    expect(parseSocksGreeting(Buffer.from([5, 2, 2, 0]))).toEqual({ state: 'ok', noAuth: true, length: 4 });
    expect(parseSocksGreeting(Buffer.from([5, 1, 2]))).toEqual({ state: 'ok', noAuth: false, length: 3 });
    expect(parseSocksGreeting(Buffer.from([5, 0]))).toEqual({ state: 'bad' });
    expect(parseSocksRequest(socksRequest('10.1.2.3', 443))).toEqual({
      state: 'ok',
      command: 1,
      dest: { host: '10.1.2.3', port: 443 },
      length: 10,
    });
    expect(parseSocksRequest(socksRequest('example.com', 80, 2))).toMatchObject({
      command: 2,
      dest: { host: 'example.com', port: 80 },
    });
    const v6 = Buffer.alloc(16);
    v6[15] = 1;
    expect(parseSocksRequest(socksRequest('', 22, 1, v6))).toMatchObject({ dest: { host: '::1', port: 22 } });
    expect(parseSocksRequest(socksRequest('example.com', 80).subarray(0, 9))).toEqual({ state: 'more' });
    expect(parseSocksRequest(Buffer.from([5, 1, 0, 9, 0, 0]))).toEqual({ state: 'bad', reply: 8 });
    expect(parseSocksRequest(Buffer.from([5, 1, 0, 3, 0, 0, 80]))).toEqual({ state: 'bad', reply: 1 });
    expect(parseSocksRequest(Buffer.from([4, 1, 0, 1, 0, 0, 0, 0, 0, 80]))).toEqual({ state: 'bad', reply: 1 });
    const b = (s: string) => Uint8Array.from(Buffer.from(s.replace(/ /g, ''), 'hex'));
    expect(formatIpv6(b('2001 0db8 0000 0000 0000 0000 0000 0001'))).toBe('2001:db8::1');
    expect(formatIpv6(b('0000 0000 0000 0000 0000 0000 0000 0000'))).toBe('::');
    // Of two equal runs of zeros, the first is written :: (RFC 5952).
    expect(formatIpv6(b('0001 0000 0002 0000 0000 0003 0000 0000'))).toBe('1:0:2::3:0:0');
    expect(formatIpv6(b('0001 0002 0003 0004 0005 0006 0000 0008'))).toBe('1:2:3:4:5:6:0:8');
  });
});

describe('the socket file', () => {
  it('is mode 0600, replaces a stale one, refuses to remove anything else, and goes on close', async () => {
    const path = join(dir, 'stale.sock');
    // A socket file whose server is gone (what a crashed Core leaves).
    execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', path]);
    expect(lstatSync(path).isSocket()).toBe(true);
    const p = await NetProxy.listen(path, { allowLocalPorts: [] });
    const st = lstatSync(path);
    expect(st.isSocket()).toBe(true);
    expect(st.mode & 0o777).toBe(0o600);
    expect(spawnSync('ls', ['-A', dir]).stdout.toString()).not.toMatch(/\.np/); // the bind folder is gone
    await p.close();
    expect(existsSync(path)).toBe(false);

    const file = join(dir, 'file.sock');
    writeFileSync(file, 'mine');
    await expect(NetProxy.listen(file, { allowLocalPorts: [] })).rejects.toThrow(/exists and is not a socket/);
    await expect(NetProxy.listen(join(dir, 'x'.repeat(120)), { allowLocalPorts: [] })).rejects.toThrow(/too long/);
  });
});

describe('HTTP', () => {
  it('CONNECT to an allowed local port: 200, then bytes both ways', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [echo.port] });
    const s = connect({ path, allowHalfOpen: true });
    s.write(`CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\nHost: 127.0.0.1:${echo.port}\r\n\r\nearly`);
    const all = received(s);
    s.end('-late');
    expect((await all).toString()).toBe('HTTP/1.1 200 Connection established\r\n\r\nearly-late');
    expect([p.requests, p.refused]).toEqual([1, 0]);
  });

  it('CONNECT to the loopback not allowed: 403 naming the reason, counted and noted', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [] });
    const answer = (await exchange(path, `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`)).toString();
    const why = `this machine's loopback; add ${echo.port} to sandbox.allow_local_ports`;
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    expect(answer).toContain(`\r\nX-Switchboard-Refused: ${why}\r\n`);
    expect(answer).toMatch(new RegExp(`\r\n\r\nswitchboard sandbox: 127.0.0.1:${echo.port} refused: ${why}\n$`));
    await exchange(path, `CONNECT localhost:${echo.port} HTTP/1.1\r\n\r\n`);
    await exchange(path, `CONNECT 127.0.0.1:${echo.port} HTTP/1.1\r\n\r\n`);
    expect([p.requests, p.refused]).toEqual([3, 3]);
    expect(p.recentRefusals()).toEqual([
      `localhost:${echo.port} (resolves to 127.0.0.1, ${why})`,
      `127.0.0.1:${echo.port} (${why})`,
    ]);
  });

  it('an absolute-form GET goes on in origin form: its own Host, no Proxy-* headers, Connection: close', async () => {
    const { path } = await proxy({ allowLocalPorts: [web.port] });
    const answer = (
      await exchange(
        path,
        `GET http://localhost:${web.port}/a/b?c=1 HTTP/1.1\r\nHost: elsewhere\r\nProxy-Authorization: Basic eA==\r\n` +
          'Proxy-Connection: keep-alive\r\nX-Mine: yes\r\n\r\n',
      )
    ).toString();
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    const seen = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    expect(seen).toMatchObject({ method: 'GET', url: '/a/b?c=1' });
    expect(seen.headers).toEqual({ host: `localhost:${web.port}`, 'x-mine': 'yes', connection: 'close' });
  });

  it('a POST body goes on, even when it comes after the head', async () => {
    const { path } = await proxy({ allowLocalPorts: [web.port] });
    const s = connect({ path });
    const all = received(s);
    s.write(`POST http://127.0.0.1:${web.port}/post HTTP/1.1\r\nContent-Length: 5\r\n\r\nab`);
    setTimeout(() => s.write('cde'), 50);
    const answer = (await all).toString();
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ method: 'POST', url: '/post' });
  });

  it('a port nothing listens on: 502 with the error; a name that does not resolve: 502', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [nowhere] });
    const answer = (await exchange(path, `CONNECT 127.0.0.1:${nowhere} HTTP/1.1\r\n\r\n`)).toString();
    expect(answer).toMatch(/^HTTP\/1\.1 502 Bad Gateway\r\n/);
    expect(answer).toContain(`switchboard sandbox: 127.0.0.1:${nowhere} unreachable: ECONNREFUSED`);
    const dns = (await exchange(path, 'GET http://nowhere.test/ HTTP/1.1\r\n\r\n')).toString();
    expect(dns).toContain('unreachable: cannot resolve nowhere.test (ENOTFOUND)');
    expect(p.refused).toBe(0);
  });

  it('malformed requests get one error each', async () => {
    const { path } = await proxy({ allowLocalPorts: [] });
    const status = async (bytes: string | Buffer, end = false) =>
      (await exchange(path, bytes, end)).toString().split('\r\n')[0];
    expect(await status('GET / HTTP/1.1\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await status('GET https://a/ HTTP/1.1\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await status('CONNECT a HTTP/1.1\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await status('CONNECT [::1:22 HTTP/1.1\r\n\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await status('hello there\r\n')).toBe('HTTP/1.1 400 Bad Request');
    expect(await status(Buffer.from([0x16, 3, 1, 0, 5]))).toBe('HTTP/1.1 400 Bad Request');
    expect(await status(`GET http://a/ HTTP/1.1\r\nX: ${'y'.repeat(40_000)}`)).toBe(
      'HTTP/1.1 431 Request Header Fields Too Large',
    );
    expect(await status('CONNECT a:1 HTTP/1.1\r\nHost:', true)).toBe('HTTP/1.1 400 Bad Request'); // half-closed early
    const socks4 = await exchange(path, Buffer.from([4, 1, 0, 80, 127, 0, 0, 1, 0]));
    expect([...socks4]).toEqual([0, 0x5b, 0, 0, 0, 0, 0, 0]);
  });

  it('a head that never completes times out with 408', async () => {
    const { path } = await proxy({ allowLocalPorts: [] }, { headTimeoutMs: 200 });
    expect((await exchange(path, 'CONNECT a:1 HTTP/1.1\r\n')).toString()).toMatch(/^HTTP\/1\.1 408 /);
    const silent = connect({ path });
    expect((await received(silent)).length).toBe(0); // nothing sent at all: closed without a word
  });
});

describe('SOCKS5', () => {
  it('CONNECT by IPv4, by name and by IPv6 to an allowed local port; the reply, then bytes both ways', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [echo.port] });
    for (const host of ['127.0.0.1', 'localhost', 'db.test']) {
      const { socket, reply } = await socksOpen({ path }, host, echo.port);
      expect([host, reply]).toEqual([host, 0]);
      const all = received(socket);
      socket.end(`via ${host}`);
      expect((await all).toString()).toBe(`via ${host}`);
    }
    const v6 = Buffer.alloc(16);
    v6[15] = 1;
    const s = connect({ path });
    s.write(Buffer.concat([SOCKS_HELLO, socksRequest('', echo.port, 1, v6), Buffer.from('pipelined')]));
    expect([...(await readBytes(s, 12))]).toEqual([5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect((await readBytes(s, 9)).toString()).toBe('pipelined');
    s.destroy();
    expect(p.requests).toBe(4);
  });

  it('reply codes: not allowed 2, refused 5, unresolvable 4, command 7, address type 8, no method 0xff', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [nowhere] });
    expect((await socksOpen({ path }, '127.0.0.1', echo.port)).reply).toBe(2);
    expect((await socksOpen({ path }, '169.254.169.254', 80)).reply).toBe(2);
    expect((await socksOpen({ path }, '127.0.0.1', nowhere)).reply).toBe(5);
    expect((await socksOpen({ path }, 'nowhere.test', 80)).reply).toBe(4);
    const answer = async (bytes: Buffer) => [...(await exchange(path, bytes))];
    expect(await answer(Buffer.concat([SOCKS_HELLO, socksRequest('127.0.0.1', 1, 2)]))).toEqual([
      5, 0, 5, 7, 0, 1, 0, 0, 0, 0, 0, 0,
    ]);
    expect(await answer(Buffer.from([5, 1, 0, 5, 1, 0, 9, 0]))).toEqual([5, 0, 5, 8, 0, 1, 0, 0, 0, 0, 0, 0]);
    expect(await answer(Buffer.from([5, 1, 2]))).toEqual([5, 0xff]);
    expect(await answer(Buffer.concat([SOCKS_HELLO, socksRequest('bad\nname', 80)]))).toEqual([
      5, 0, 5, 1, 0, 1, 0, 0, 0, 0, 0, 0,
    ]);
    expect(p.recentRefusals()).toEqual([
      `127.0.0.1:${echo.port} (this machine's loopback; add ${echo.port} to sandbox.allow_local_ports)`,
      '169.254.169.254:80 (a link-local address (where cloud metadata answers); never reachable from a sandbox)',
    ]);
  });
});

describe('hostile clients', () => {
  it('garbage, half-open sockets and early closes never stop the proxy', async () => {
    // allow_hosts: a random SOCKS5 request names a random public address, which must not be dialled.
    const rules = { allowHosts: ['only.test'], allowLocalPorts: [echo.port] };
    const { p, path } = await proxy(rules, { headTimeoutMs: 300 });
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const starts = [[5], [5, 1, 0], [5, 1, 0, 5, 1, 0], [4], [0x43], [0x47, 0x45, 0x54, 0x20], []];
    const attempts: Promise<unknown>[] = [];
    for (let i = 0; i < 150; i++) {
      const prefix = starts[i % starts.length] ?? [];
      const tail = Array.from({ length: Math.floor(random() * 300) }, () => Math.floor(random() * 256));
      const s = connect({ path });
      const done = received(s);
      const bytes = Buffer.from([...prefix, ...tail]);
      const how = i % 3;
      if (how === 0)
        s.end(bytes); // half-closed right after
      else if (how === 1)
        s.write(bytes, () => s.destroy()); // gone right after
      else s.write(bytes); // left open: the head timeout or an error reply ends it
      attempts.push(done);
    }
    // A client that goes away while its destination is being resolved and connected.
    names['slow.test'] = ['127.0.0.1'];
    const early = connect({ path });
    early.write(`CONNECT slow.test:${echo.port} HTTP/1.1\r\n\r\n`, () => early.destroy());
    await Promise.all(attempts);
    const { socket, reply } = await socksOpen({ path }, '127.0.0.1', echo.port);
    expect(reply).toBe(0);
    socket.destroy();
    expect(p.requests).toBeGreaterThan(0);
  });

  it('close() ends open tunnels and stops listening', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [echo.port] });
    const { socket } = await socksOpen({ path }, '127.0.0.1', echo.port);
    const ended = new Promise((resolve) => socket.once('end', resolve));
    socket.resume();
    await p.close();
    await ended; // the proxy's side closed: the tunnel's end reaches the client
    const again = connect({ path });
    await expect(new Promise((_, reject) => again.on('error', reject))).rejects.toThrow(/ENOENT|ECONNREFUSED/);
  });

  it('setRules applies to the next connection', async () => {
    const { p, path } = await proxy({ allowLocalPorts: [] });
    expect((await socksOpen({ path }, '127.0.0.1', echo.port)).reply).toBe(2);
    p.setRules({ allowLocalPorts: [echo.port] });
    const { socket, reply } = await socksOpen({ path }, '127.0.0.1', echo.port);
    expect(reply).toBe(0);
    socket.destroy();
  });
});

describe('curl through a bridge', () => {
  let bridges: Bridges;
  let path: string;
  beforeAll(async () => {
    ({ path } = await proxy({ allowLocalPorts: [web.port] }));
    bridges = await startBridges({ socketPath: path, httpPort: 0, socksPort: 0, localPorts: [] });
  });
  afterAll(() => bridges.close());
  const via = () => `http://127.0.0.1:${bridges.httpPort}`;
  const socks = () => `127.0.0.1:${bridges.socksPort}`;

  it('HTTP proxy, plain and CONNECT: allowed', async () => {
    for (const tunnel of [[], ['--proxytunnel']]) {
      const r = await curl([...tunnel, '--proxy', via(), `http://localhost:${web.port}/hi`]);
      expect([r.code, r.stderr]).toEqual([0, '']);
      expect(JSON.parse(r.stdout)).toMatchObject({ method: 'GET', url: '/hi' });
    }
  });

  it('HTTP proxy, plain and CONNECT: refused', async () => {
    const plain = await curl(['-w', '%{http_code}', '--proxy', via(), `http://127.0.0.1:${echo.port}/`]);
    expect(plain.stdout).toBe(
      `switchboard sandbox: 127.0.0.1:${echo.port} refused: this machine's loopback; add ${echo.port} to ` +
        'sandbox.allow_local_ports\n403',
    );
    const tunnel = await curl(['--proxytunnel', '--proxy', via(), `http://127.0.0.1:${echo.port}/`]);
    expect(tunnel.code).not.toBe(0);
    expect(tunnel.stderr).toMatch(/CONNECT tunnel failed, response 403/);
  });

  it('SOCKS5 with names resolved by the proxy: allowed and refused', async () => {
    const ok = await curl(['--socks5-hostname', socks(), `http://localhost:${web.port}/s`]);
    expect([ok.code, JSON.parse(ok.stdout).url]).toEqual([0, '/s']);
    const v6 = await curl(['--socks5-hostname', socks(), `http://[::1]:${web.port}/v6`]);
    expect([v6.code, JSON.parse(v6.stdout).url]).toEqual([0, '/v6']);
    const no = await curl(['--socks5-hostname', socks(), `http://localhost:${echo.port}/`]);
    expect(no.code).toBe(97); // CURLE_PROXY: the SOCKS5 reply was "not allowed"
    expect(no.stderr).toMatch(/Can't complete SOCKS5 connection to localhost\. \(2\)/); // 2: not allowed
  });
});

/** The commands a namespace test runs, as root; undefined when it can, else why not. */
function namespaceBlocker(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  if (spawnSync('ip', ['-V']).status !== 0) return 'no ip(8)';
  return undefined;
}

const blocker = namespaceBlocker();
if (blocker) console.warn(`network namespace tests skipped: ${blocker}`);
(blocker ? describe.skip : describe)('a destination in a network namespace of its own (root)', () => {
  // 203.0.113.0/24 (documentation addresses) counts as public; a /30 of it per test process.
  const slot = (process.pid % 60) * 4;
  const outside = `203.0.113.${slot + 1}`;
  const inside = `203.0.113.${slot + 2}`;
  const ns = `sbnet${process.pid}`;
  const veth = `sbv${process.pid}`.slice(0, 15);
  let server: ReturnType<typeof spawn> | undefined;
  const ip = (...args: string[]) => execFileSync('ip', args, { stdio: 'pipe' });

  beforeAll(async () => {
    // A namespace an earlier run left (killed before its afterAll) goes, with its veth pair and addresses.
    for (const [, name, pid] of ip('netns', 'list')
      .toString()
      .matchAll(/^(sbnet(\d+))\b/gm)) {
      if (name && !existsSync(`/proc/${pid}`)) spawnSync('ip', ['netns', 'del', name]);
    }
    ip('netns', 'add', ns);
    ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', `${veth}p`);
    ip('link', 'set', `${veth}p`, 'netns', ns);
    ip('addr', 'add', `${outside}/30`, 'dev', veth);
    ip('link', 'set', veth, 'up');
    ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${inside}/30`, 'dev', `${veth}p`);
    ip('netns', 'exec', ns, 'ip', 'link', 'set', `${veth}p`, 'up');
    ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
    const script =
      "require('http').createServer((q,s)=>s.end('from the namespace '+q.url))" +
      ".listen(8080,'0.0.0.0',()=>console.log('ready'))";
    server = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      server?.stdout?.once('data', () => resolve());
      server?.once('exit', (code) => reject(new Error(`the namespace's server exited (${code})`)));
    });
    names['api.example.test'] = [inside];
    names['example.test'] = [inside];
    names['rebind.example.test'] = ['127.0.0.1'];
  });
  afterAll(() => {
    server?.kill();
    spawnSync('ip', ['netns', 'del', ns]); // takes the veth pair with it
  });

  const get = async (path: string, host: string) => {
    const answer = (await exchange(path, `GET http://${host}:8080/x HTTP/1.1\r\n\r\n`)).toString();
    return answer.startsWith('HTTP/1.1 200') ? answer.slice(answer.indexOf('\r\n\r\n') + 4) : answer.split('\r\n')[0];
  };

  it('any public host without allow_hosts', async () => {
    const { path } = await proxy({ allowLocalPorts: [] });
    expect(await get(path, inside)).toBe('from the namespace /x');
    expect(await get(path, 'api.example.test')).toBe('from the namespace /x');
    const { socket, reply } = await socksOpen({ path }, inside, 8080);
    expect(reply).toBe(0);
    const all = received(socket);
    socket.end('GET /socks HTTP/1.0\r\n\r\n');
    expect((await all).toString()).toMatch(/from the namespace \/socks$/);
  });

  it('allow_hosts narrows: *.example.test reaches its subdomains, not the apex, not the bare address', async () => {
    const { p, path } = await proxy({ allowHosts: ['*.example.test'], allowLocalPorts: [] });
    expect(await get(path, 'api.example.test')).toBe('from the namespace /x');
    expect(await get(path, 'example.test')).toBe('HTTP/1.1 403 Forbidden');
    expect(await get(path, inside)).toBe('HTTP/1.1 403 Forbidden');
    expect(await get(path, 'rebind.example.test')).toBe('HTTP/1.1 403 Forbidden');
    expect(p.recentRefusals()).toEqual([
      'example.test:8080 (not in sandbox.allow_hosts)',
      `${inside}:8080 (an address asked for directly must be listed in sandbox.allow_hosts)`,
      "rebind.example.test:8080 (resolves to 127.0.0.1, this machine's loopback; add 8080 to " +
        'sandbox.allow_local_ports)',
    ]);
    p.setRules({ allowHosts: [inside], allowLocalPorts: [] });
    expect(await get(path, inside)).toBe('from the namespace /x');
  });

  it("this machine's own address is this machine: refused, or 127.0.0.1 on an allowed local port", async () => {
    const { path } = await proxy({ allowLocalPorts: [] });
    const refused = (await exchange(path, `CONNECT ${outside}:${echo.port} HTTP/1.1\r\n\r\n`)).toString();
    expect(refused).toContain(`refused: this machine's own address; add ${echo.port} to sandbox.allow_local_ports`);
    const { path: allowed } = await proxy({ allowLocalPorts: [echo.port] });
    const { socket, reply } = await socksOpen({ path: allowed }, outside, echo.port);
    expect(reply).toBe(0);
    const all = received(socket);
    socket.end('to the loopback echo');
    expect((await all).toString()).toBe('to the loopback echo');
  });
});
