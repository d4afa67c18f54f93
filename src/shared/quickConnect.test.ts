import { describe, expect, it } from 'vitest';
import { looksLikeQuickConnect, parseQuickConnect, quickConnectLabel, quickConnectName } from './quickConnect.js';

describe('parseQuickConnect', () => {
  const good: Array<[string, object]> = [
    ['me@example.com', { user: 'me', host: 'example.com' }],
    ['me@example.com:2222', { user: 'me', host: 'example.com', port: 2222 }],
    ['  deploy@10.0.0.5:22  ', { user: 'deploy', host: '10.0.0.5', port: 22 }],
    ['me@[::1]:2222', { user: 'me', host: '::1', port: 2222 }],
    ['ssh://me@staging:2200', { user: 'me', host: 'staging', port: 2200 }],
    ['ssh://staging/', { host: 'staging' }],
    ['ssh me@staging -p 2222', { user: 'me', host: 'staging', port: 2222 }],
    ['ssh -p 2222 me@staging', { user: 'me', host: 'staging', port: 2222 }],
    ['ssh -l me -i ~/.ssh/k staging', { user: 'me', host: 'staging', key: '~/.ssh/k' }],
    ['ssh staging', { host: 'staging' }],
    ['first.last@host-1.example.org', { user: 'first.last', host: 'host-1.example.org' }],
  ];
  for (const [text, value] of good) {
    it(`reads ${JSON.stringify(text)}`, () => {
      expect(parseQuickConnect(text)).toEqual({ ok: true, value });
      expect(looksLikeQuickConnect(text)).toBe(true);
    });
  }

  const bad: Array<[string, RegExp]> = [
    ['me@', /type a host after the @/],
    ['me@host:99999', /between 1 and 65535/],
    ['me@host:ssh', /must be a number/],
    ['me@bad_host', /not a host name/],
    ['m e@host', /without spaces/],
    ['me;rm@host', /not a user name/],
    ['ssh -o ProxyCommand=x me@host', /-o is not read here/],
    ['ssh me@host uptime', /command after the host/],
    ['ssh -p', /-p needs a value/],
    ['ssh ', /type user@host/],
    ['me@[zz]:22', /not an IPv6 address/],
    ['split right', /type user@host/],
  ];
  for (const [text, problem] of bad) {
    it(`says what is wrong with ${JSON.stringify(text)}`, () => {
      const r = parseQuickConnect(text);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.problem).toMatch(problem);
    });
  }

  it('leaves palette words alone', () => {
    for (const words of ['split right', 'new tab', 'ssh', 'close pane'])
      expect(looksLikeQuickConnect(words)).toBe(false);
  });
});

describe('quick connect targets', () => {
  it('labels with the port, builds the SSH spec and picks a free target name', () => {
    const q = { user: 'me', host: '127.0.0.1', port: 2222 };
    expect(quickConnectLabel(q)).toBe('me@127.0.0.1:2222');
    expect(quickConnectLabel({ host: '::1' })).toBe('[::1]:22');
    expect(quickConnectName(q, new Set())).toBe('127.0.0.1-2222');
    expect(quickConnectName(q, new Set(['127.0.0.1-2222', '127.0.0.1-2222-2']))).toBe('127.0.0.1-2222-3');
    expect(quickConnectName({ host: 'Staging', port: 22 }, new Set(['staging']))).toBe('Staging-2');
    expect(quickConnectName({ host: '::1' }, new Set())).toBe('ipv6-1');
    expect(quickConnectName({ host: 'fe80::1', port: 2222 }, new Set())).toBe('ipv6-fe80-1-2222');
  });
});
