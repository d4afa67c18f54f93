import { describe, expect, it } from 'vitest';
import {
  checkHostKey,
  fingerprintOf,
  hostFieldMatches,
  hostToken,
  keyTypeOfBlob,
  knownHostsLine,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
} from './knownHosts.js';

// Real keys made with ssh-keygen; the fingerprint of k1 is what `ssh-keygen -lf -E sha256` printed.
const k1 = 'AAAAC3NzaC1lZDI1NTE5AAAAIAAdHvzC6+OphWdnprR3rLv8eNen64Uph10+9tZXRYls';
const k1Fingerprint = 'SHA256:J/cfj+wbAT82ZRWNUt6wjBrdRAYE1anosbXph+WcVoY';
const k2 = 'AAAAC3NzaC1lZDI1NTE5AAAAIKq7lUD5sQUgvaEjKXadr+2Jd6JlwPk27ccyLFcuyULB';
const k3 =
  'AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBNCYj7CA992eo1WWdNm4RZ8M6cO' +
  'LyiqvElt4hcmnGp5gxcGHcUbhbk8VjDVTxGLByGmKFVrns1BY+XzOJh2QNEY=';
/** `ssh-keygen -H` of "[example.com]:2222 ssh-ed25519 k1". */
const hashed2222 = '|1|GZGZ5zr4w2ZTO+GSVJUQdAYXoZM=|z/VhZjv+958+8aU6LhNTDtqSuyg=';
const blob = (b64: string): Buffer => Buffer.from(b64, 'base64');

describe('known_hosts primitives', () => {
  it('names the key type and fingerprint as OpenSSH does', () => {
    expect(keyTypeOfBlob(blob(k1))).toBe('ssh-ed25519');
    expect(keyTypeOfBlob(blob(k3))).toBe('ecdsa-sha2-nistp256');
    expect(fingerprintOf(blob(k1))).toBe(k1Fingerprint);
    expect(keyTypeOfBlob(Buffer.alloc(2))).toBe('unknown');
  });

  it.each([
    ['host', 22, 'host'],
    ['host', 2222, '[host]:2222'],
    ['10.0.0.1', 22, '10.0.0.1'],
  ])('hostToken(%s, %i) = %s', (host, port, token) => expect(hostToken(host, port)).toBe(token));

  it.each([
    ['example.com', 'example.com', 22, true],
    ['example.com', 'example.com', 2222, false],
    ['[example.com]:2222', 'example.com', 2222, true],
    ['[example.com]:2222', 'example.com', 22, false],
    ['other.com,example.com', 'example.com', 22, true],
    ['*.example.com', 'a.example.com', 22, true],
    ['*.example.com,!bad.example.com', 'bad.example.com', 22, false],
    ['EXAMPLE.com', 'example.com', 22, true],
    ['[*.example.com]:*', 'x.example.com', 2200, true],
    [hashed2222, 'example.com', 2222, true],
    [hashed2222, 'example.com', 22, false],
    [hashed2222, 'example.org', 2222, false],
    ['|1|broken', 'example.com', 22, false],
  ])('host field %s matches %s:%i → %s', (field, host, port, want) =>
    expect(hostFieldMatches(field, host, port)).toBe(want),
  );

  it('parses markers, skips comments and junk', () => {
    const entries = parseKnownHosts(
      `# comment\n\nexample.com ssh-ed25519 ${k1}\n@revoked bad.com ssh-ed25519 ${k2}\n@cert-authority *.ca ` +
        `ssh-ed25519 ${k2}\nonly-two-fields ssh-ed25519\nbad b64 !!!\n`,
    );
    expect(entries.map((e) => [e.marker, e.hosts, e.keyType])).toEqual([
      [undefined, 'example.com', 'ssh-ed25519'],
      ['revoked', 'bad.com', 'ssh-ed25519'],
      ['cert-authority', '*.ca', 'ssh-ed25519'],
    ]);
  });

  it('writes a line that reads back as known', () => {
    const line = knownHostsLine('127.0.0.1', 2222, blob(k1));
    expect(line).toBe(`[127.0.0.1]:2222 ssh-ed25519 ${k1}`);
    expect(checkHostKey(parseKnownHosts(line), '127.0.0.1', 2222, blob(k1))).toEqual({ status: 'known' });
  });
});

describe('checkHostKey', () => {
  const file = [
    `example.com ssh-ed25519 ${k1}`,
    `${hashed2222} ssh-ed25519 ${k1}`,
    `ecdsa-only.com ecdsa-sha2-nistp256 ${k3}`,
    `@revoked revoked.com ssh-ed25519 ${k2}`,
    `@cert-authority ca.com ssh-ed25519 ${k2}`,
  ].join('\n');
  const entries = parseKnownHosts(file);
  it.each([
    ['plain match', 'example.com', 22, k1, { status: 'known' }],
    ['hashed [host]:port match', 'example.com', 2222, k1, { status: 'known' }],
    [
      'same type, other key → changed',
      'example.com',
      22,
      k2,
      { status: 'changed', expectedFingerprint: k1Fingerprint },
    ],
    [
      'hashed entry, other key → changed',
      'example.com',
      2222,
      k2,
      { status: 'changed', expectedFingerprint: k1Fingerprint },
    ],
    ['port 22 entry does not cover 2200', 'example.com', 2200, k2, { status: 'unknown', otherTypes: [] }],
    [
      'other type known only → unknown, naming it',
      'ecdsa-only.com',
      22,
      k1,
      { status: 'unknown', otherTypes: ['ecdsa-sha2-nistp256'] },
    ],
    ['revoked key', 'revoked.com', 22, k2, { status: 'revoked' }],
    ['cert-authority lines are not host keys', 'ca.com', 22, k2, { status: 'unknown', otherTypes: [] }],
    ['nobody knows it', 'new.com', 22, k1, { status: 'unknown', otherTypes: [] }],
  ])('%s', (_name, host, port, key, want) => expect(checkHostKey(entries, host, port, blob(key))).toEqual(want));
});

describe('preferredHostKeyAlgorithms', () => {
  const defaults = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'];
  it.each([
    [[], defaults],
    [['ecdsa-sha2-nistp256'], ['ecdsa-sha2-nistp256', 'ssh-ed25519', 'rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']],
    [['ssh-rsa'], ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa', 'ssh-ed25519', 'ecdsa-sha2-nistp256']],
    [['ssh-dss'], defaults],
  ])('known %j → %j', (known, want) => expect(preferredHostKeyAlgorithms(known, defaults)).toEqual(want));
});
