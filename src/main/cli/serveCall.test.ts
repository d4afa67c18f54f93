import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request, type IncomingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import { connectCore } from '../transport/wsLink.js';
import { ensureBuilt, runCli, startServe, tempHome, type Served } from '../../../scripts/cliHarness.js';

function httpGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serve + call', () => {
  const home = tempHome();
  const dirA = join(home, 'work-a');
  const dirB = join(home, 'work-b');
  let served: Served;

  beforeAll(async () => {
    ensureBuilt();
    mkdirSync(dirA);
    mkdirSync(dirB);
    writeFileSync(
      join(home, 'config.yaml'),
      `terminal:\n  targets:\n    a: { backend: local, cwd: ${dirA} }\n    b: { backend: local, cwd: ${dirB} }\n`,
    );
    served = await startServe(home);
  });
  afterAll(async () => {
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('writes core.json with mode 0600', () => {
    expect(statSync(join(home, 'core.json')).mode & 0o777).toBe(0o600);
  });

  it('keeps cwd per target across calls from separate processes', async () => {
    const cd = await runCli(home, [
      'call',
      'terminal',
      JSON.stringify({ command: 'cd /tmp', execution_target: 'a' }),
      '--json',
    ]);
    expect(cd.status).toBe(0);
    expect(JSON.parse(cd.stdout)).toMatchObject({ execution_target: 'a', cwd: '/tmp', exit_code: 0 });
    const a = JSON.parse(
      (await runCli(home, ['call', 'terminal', '{"command":"pwd","execution_target":"a"}', '--json'])).stdout,
    );
    const b = JSON.parse(
      (await runCli(home, ['call', 'terminal', '{"command":"pwd","execution_target":"b"}', '--json'])).stdout,
    );
    expect(a.output).toBe('/tmp\n');
    expect(b.output).toBe(dirB + '\n');
    expect(b.generation).toMatch(/^c/);
  });

  it('prints plain output without --json and passes the exit code on', async () => {
    const r = await runCli(home, ['call', 'terminal', '{"command":"echo hi; exit 3","execution_target":"b"}']);
    expect(r.stdout).toBe('hi\n');
    expect(r.status).toBe(3);
  });

  it('refuses an unknown target with one stderr line and exit 2', async () => {
    const r = await runCli(home, ['call', 'terminal', '{"command":"pwd","execution_target":"zz"}', '--json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/unknown target "zz"/);
  });

  it('refuses bad JSON arguments in one line', async () => {
    const r = await runCli(home, ['call', 'terminal', '{nope']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^switchboard: the arguments are not valid JSON/);
  });

  it('lists targets through the running Core, with the tracked cwd', async () => {
    const r = await runCli(home, ['targets', 'list', '--json']);
    const doc = JSON.parse(r.stdout);
    expect(doc.targets.map((t: { name: string }) => t.name)).toEqual(['a', 'b']);
    expect(doc.targets[0]).toMatchObject({
      name: 'a',
      backend: 'local',
      source: 'config',
      state: 'active',
      is_default: true,
    });
  });

  it('lists the config problems the running Core kept the last good config over', async () => {
    const configPath = join(home, 'config.yaml');
    const good = readFileSync(configPath, 'utf8');
    writeFileSync(configPath, `${good}    c: { backend: local, cwd: [unclosed\n`);
    try {
      let doc: { targets: Array<{ name: string }>; problems: string[]; live: boolean } = {
        targets: [],
        problems: [],
        live: false,
      };
      for (let i = 0; i < 100 && !doc.problems.some((p) => p.includes('config.yaml')); i++) {
        await new Promise((r) => setTimeout(r, 100));
        doc = JSON.parse((await runCli(home, ['targets', 'list', '--json'])).stdout) as typeof doc;
      }
      expect(doc.live).toBe(true);
      expect(doc.problems.some((p) => p.includes('config.yaml'))).toBe(true);
      expect(doc.targets.map((t) => t.name)).toEqual(['a', 'b']);
      // Without --json the problem is a warning line on stderr; the table still prints.
      const plain = await runCli(home, ['targets', 'list']);
      expect(plain.status).toBe(0);
      expect(plain.stderr).toMatch(/^switchboard: warning: .*config\.yaml/m);
    } finally {
      writeFileSync(configPath, good);
    }
  });

  it('requires the token on every request, checks Host and Origin; the link sets no cookie', async () => {
    // (Only a person link's code, traded by its page, buys a cookie: transport/personLink.test.ts.)
    const port = new URL(served.url).port;
    const page = `${served.url}s/${served.token}/`;
    expect((await httpGet(served.url)).status).toBe(401);
    expect((await httpGet(`${served.url}?token=wrong`)).status).toBe(401);
    const entry = await httpGet(served.openUrl);
    expect(entry.status).toBe(302);
    expect(entry.headers.location).toBe(`/s/${served.token}/`);
    expect(entry.headers['set-cookie']).toBeUndefined();
    // Accepted: the page (200) or, before the renderer is built, 503 — never 401/403.
    const accepted = [200, 503];
    expect(accepted).toContain((await httpGet(page)).status);
    expect((await httpGet(`${served.url}s/wrong/`)).status).toBe(401);
    expect((await httpGet(`${served.url}s/wrong/assets/index.js`)).status).toBe(401);
    expect((await httpGet(`${served.url}assets/index.js`)).status).toBe(401);
    expect((await httpGet(page, { origin: 'http://evil.example' })).status).toBe(403);
    expect((await httpGet(page, { origin: 'null' })).status).toBe(403);
    expect((await httpGet(page, { host: `evil.example:${port}` })).status).toBe(403);
    expect(accepted).toContain((await httpGet(page, { origin: `http://localhost:${port}` })).status);
  });

  it('survives malformed requests, resets and oversized frames', async () => {
    const port = Number(new URL(served.url).port);
    // A request line Node cannot make a URL of, a bad percent-encoding, a reset refused upgrade.
    for (const raw of [
      `GET http://[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
      `GET /s/${served.token}/%E0%A4%A HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
      `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: ` +
        `Upgrade\r\nSec-WebSocket-Key: x3JJHMbDL1EzLkh9GBhXDw==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    ]) {
      await new Promise<void>((resolve) => {
        const sock = connect(port, '127.0.0.1', () => {
          sock.write(raw);
          setTimeout(() => {
            sock.resetAndDestroy();
            resolve();
          }, 50);
        });
        sock.on('error', () => resolve());
      });
    }
    const { client, close } = await connectCore(
      served.url.replace('http', 'ws') + 'ws',
      served.token,
      undefined,
      served.approver,
    );
    try {
      const big = 'x'.repeat(17 * 1024 * 1024);
      await expect(
        client.call('tool.call', { tool: 'write_file', args: { path: 'big.txt', content: big }, client: 'test' }),
      ).rejects.toMatchObject({ code: 'too_large' });
    } finally {
      close();
    }
    // Still serving.
    const r = await runCli(home, ['call', 'terminal', '{"command":"echo alive","execution_target":"a"}']);
    expect(r.stdout).toBe('alive\n');
  });

  it('closes the panes a connection opened when it goes away', async () => {
    const wsUrl = served.url.replace('http', 'ws') + 'ws';
    const a = await connectCore(wsUrl, served.token, undefined, served.approver);
    const b = await connectCore(wsUrl, served.token, undefined, served.approver);
    try {
      const pane = await a.client.call('pane.open', { execution_target: 'a', cols: 80, rows: 24 });
      expect((await b.client.call('pane.list', {})).map((p) => p.pane_id)).toContain(pane.pane_id);
      a.close();
      await expect
        .poll(async () => (await b.client.call('pane.list', {})).map((p) => p.pane_id))
        .not.toContain(pane.pane_id);
    } finally {
      b.close();
    }
  });

  it('a second serve on a port in use says so in one line', async () => {
    const other = tempHome();
    const r = await runCli(other, ['serve', '--port', new URL(served.url).port]);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toMatch(/^switchboard: 127\.0\.0\.1:\d+ is already in use — pick another --port/);
    expect(existsSync(join(other, 'core.json'))).toBe(false);
    rmSync(other, { recursive: true, force: true });
  });

  it('removes core.json on exit, after which call says no Core runs', async () => {
    await served.stop();
    expect(existsSync(join(home, 'core.json'))).toBe(false);
    const r = await runCli(home, ['call', 'terminal', '{"command":"pwd"}']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(
      /^switchboard: no Switchboard Core is running .* — start one with `switchboard serve`/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('usage mistakes', () => {
  const home = tempHome();
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  for (const args of [
    ['frobnicate'],
    ['call'],
    ['targets', 'register', 'x'],
    ['approvals', 'approve'],
    ['serve', '--port', 'abc'],
    ['targets', 'list', '--bogus'],
  ]) {
    it(`\`${args.join(' ')}\` is one stderr line and exit 2`, async () => {
      ensureBuilt();
      const r = await runCli(home, args);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^switchboard: /);
    });
  }
});

describe('config errors stop the commands that load it', () => {
  const home = tempHome();
  beforeAll(() => {
    ensureBuilt();
    writeFileSync(join(home, 'config.yaml'), 'terminal:\n  targets:\n    a: { backend: local, cwdd: /tmp }\n');
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  for (const args of [
    ['serve', '--port', '0'],
    ['targets', 'list'],
  ]) {
    it(`${args[0]} exits non-zero naming the key`, async () => {
      const r = await runCli(home, args);
      expect(r.status).not.toBe(0);
      expect(r.stderr.trim()).toMatch(/unknown key "cwdd" in target "a".*did you mean "cwd"/);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    });
  }
});
