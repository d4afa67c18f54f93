import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  expandPath,
  globMatch,
  loadSshConfig,
  parseJumpHop,
  parseSshConfig,
  patternListMatches,
  resolveSshConfig,
} from './sshConfig.js';

const local = { home: '/home/me', user: 'me' };

const config = `
# global defaults come first in a real file only if they should win
Host build
  HostName build.internal.example.com
  User ci
  Port 2200
  IdentityFile ~/.ssh/build_ed25519

Host box-?
  HostName %h.lab
  IdentityFile=~/.ssh/%r_%h

Host *.corp !secret.corp
  User corp-user

Match host foo
  User from-match

Host "quoted"
  HostName "q.example.com"

Host *
  User fallback
  Port 22
  IdentityFile ~/.ssh/id_default
  IdentityFile none
`;

describe('patterns', () => {
  it.each([
    ['*', 'anything', true],
    ['box-?', 'box-1', true],
    ['box-?', 'box-12', false],
    ['*.corp', 'a.corp', true],
    ['a.b', 'aXb', false],
    ['HOST', 'host', true],
  ])('glob %s vs %s → %s', (p, v, want) => expect(globMatch(p, v)).toBe(want));
  it.each([
    [['*.corp', '!secret.corp'], 'a.corp', true],
    [['*.corp', '!secret.corp'], 'secret.corp', false],
    [['!x'], 'y', false],
  ])('list %j vs %s → %s', (p, v, want) => expect(patternListMatches(p, v)).toBe(want));
});

describe('resolveSshConfig', () => {
  const blocks = parseSshConfig(config);
  it.each([
    [
      'build',
      {
        hostName: 'build.internal.example.com',
        user: 'ci',
        port: 2200,
        identityFiles: ['/home/me/.ssh/build_ed25519', '/home/me/.ssh/id_default'],
      },
    ],
    [
      'box-1',
      {
        hostName: 'box-1.lab',
        user: 'fallback',
        port: 22,
        identityFiles: ['/home/me/.ssh/fallback_box-1.lab', '/home/me/.ssh/id_default'],
      },
    ],
    ['a.corp', { user: 'corp-user', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
    ['secret.corp', { user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
    // Match blocks apply (the old reader skipped them).
    ['foo', { user: 'from-match', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
    ['quoted', { hostName: 'q.example.com', user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
  ])('%s', (alias, want) => expect(resolveSshConfig(blocks, alias, local)).toEqual(want));

  it('empty config resolves to nothing', () => {
    expect(resolveSshConfig(parseSshConfig(''), 'x', local)).toEqual({ identityFiles: [] });
  });

  it('lines before the first Host apply to every host; a bad port is ignored', () => {
    expect(resolveSshConfig(parseSshConfig('User early\nPort notaport\nHost x\n  User late\n'), 'x', local)).toEqual({
      user: 'early',
      identityFiles: [],
    });
  });
});

describe('ProxyJump, Match and Include', () => {
  it('ProxyJump lists its hops in order; none means none', () => {
    const c = parseSshConfig('Host inner\n  ProxyJump ops@bastion:2222,second\nHost direct\n  ProxyJump none\n');
    expect(resolveSshConfig(c, 'inner', local).proxyJump).toEqual(['ops@bastion:2222', 'second']);
    expect(resolveSshConfig(c, 'direct', local).proxyJump).toBeUndefined();
    expect(parseJumpHop('ops@bastion:2222')).toEqual({ user: 'ops', host: 'bastion', port: 2222 });
    expect(parseJumpHop('ssh://[::1]:22')).toEqual({ host: '::1', port: 22 });
    expect(parseJumpHop('bad host')).toBeUndefined();
  });

  it('Match host and Match user apply; Match exec is never run inside the Core', () => {
    const c = parseSshConfig('Match host *.lab\n  User lab\nMatch exec "touch /tmp/should-not-exist-sb"\n  Port 2\n');
    expect(resolveSshConfig(c, 'a.lab', local)).toMatchObject({ user: 'lab' });
    expect(resolveSshConfig(c, 'a.lab', local).port).toBeUndefined();
  });

  it(
    'Include reads files relative to ~/.ssh, with globs, ' + 'in place inside a Host block, and survives loops',
    async () => {
      const home = mkdtempSync(join(tmpdir(), 'sb-sshcfg-'));
      try {
        mkdirSync(join(home, '.ssh', 'conf.d'), { recursive: true });
        writeFileSync(
          join(home, '.ssh', 'config'),
          'Include conf.d/*.conf\nHost scoped\n  Include scoped.inc\nHost *\n  User fallback\n',
        );
        writeFileSync(
          join(home, '.ssh', 'conf.d', 'a.conf'),
          'Host web\n  HostName web.example.com\n  IdentityFile ~/.ssh/web_a\n  IdentityFile ~/.ssh/web_b\n',
        );
        writeFileSync(join(home, '.ssh', 'conf.d', 'b.conf'), 'Host db\n  Port 2201\n  Include ~/.ssh/conf.d/b.conf\n');
        writeFileSync(join(home, '.ssh', 'scoped.inc'), 'User scoped-user\n');
        const c = await loadSshConfig(home);
        const me = { home, user: 'me' };
        expect(resolveSshConfig(c, 'web', me)).toEqual({
          hostName: 'web.example.com',
          user: 'fallback',
          identityFiles: [`${home}/.ssh/web_a`, `${home}/.ssh/web_b`],
        });
        expect(resolveSshConfig(c, 'db', me)).toMatchObject({ port: 2201, user: 'fallback' });
        expect(resolveSshConfig(c, 'scoped', me)).toMatchObject({ user: 'scoped-user' });
        expect(resolveSshConfig(c, 'other', me)).toMatchObject({ user: 'fallback' });
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  );
});

describe('expandPath', () => {
  const t = { home: '/home/me', user: 'me', host: 'h', port: 22, remoteUser: 'r' };
  it.each([
    ['~', '/home/me'],
    ['~/.ssh/id', '/home/me/.ssh/id'],
    ['%d/k_%u_%r@%h:%p', '/home/me/k_me_r@h:22'],
    ['/abs/100%%', '/abs/100%'],
    ['rel/~', 'rel/~'],
  ])('%s → %s', (p, want) => expect(expandPath(p, t)).toBe(want));
});
