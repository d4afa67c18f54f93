import { describe, expect, it } from 'vitest';
import { expandPath, globMatch, parseSshConfig, patternListMatches, resolveSshConfig, splitConfigLine } from './sshConfig.js';

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

describe('splitConfigLine', () => {
  it.each([
    ['HostName example.com', { key: 'hostname', value: 'example.com' }],
    ['  Port=2222', { key: 'port', value: '2222' }],
    ['User = bob', { key: 'user', value: 'bob' }],
    ['IdentityFile "~/my keys/id"', { key: 'identityfile', value: '~/my keys/id' }],
    ['# comment', undefined],
    ['', undefined],
    ['=nokey', undefined],
  ])('%j', (line, want) => expect(splitConfigLine(line)).toEqual(want));
});

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
    ['build', { hostName: 'build.internal.example.com', user: 'ci', port: 2200, identityFiles: ['/home/me/.ssh/build_ed25519', '/home/me/.ssh/id_default'] }],
    ['box-1', { hostName: 'box-1.lab', user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/fallback_box-1.lab', '/home/me/.ssh/id_default'] }],
    ['a.corp', { user: 'corp-user', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
    ['secret.corp', { user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
    ['foo', { user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
    ['quoted', { hostName: 'q.example.com', user: 'fallback', port: 22, identityFiles: ['/home/me/.ssh/id_default'] }],
  ])('%s', (alias, want) => expect(resolveSshConfig(blocks, alias, local)).toEqual(want));

  it('empty config resolves to nothing', () => {
    expect(resolveSshConfig(parseSshConfig(''), 'x', local)).toEqual({ identityFiles: [] });
  });

  it('lines before the first Host apply to every host; a bad port is ignored', () => {
    expect(resolveSshConfig(parseSshConfig('User early\nPort notaport\nHost x\n  User late\n'), 'x', local)).toEqual({ user: 'early', identityFiles: [] });
  });
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
