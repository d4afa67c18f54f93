// The sandbox's network rules, by table: address parsing, what an address is, allow_hosts matching, the verdict.
import { describe, expect, it } from 'vitest';
import { type AddressKind, addressKind, destinationVerdict, hostMatches, type NetRules, parseIp } from './netRules.js';

const HOST = ['192.0.2.2', 'fd00::2', 'fe80::fc:ff:fe00:1', '10.1.2.3'];

describe('parseIp', () => {
  const cases: [string, number[] | undefined][] = [
    ['127.0.0.1', [127, 0, 0, 1]],
    ['::ffff:127.0.0.1', [127, 0, 0, 1]],
    ['::ffff:7f00:1', [127, 0, 0, 1]],
    ['[::ffff:169.254.169.254]', [169, 254, 169, 254]],
    ['64:ff9b::a9fe:a9fe', [169, 254, 169, 254]],
    ['::127.0.0.1', [127, 0, 0, 1]],
    ['::1', [...new Array(15).fill(0), 1]],
    ['::', new Array(16).fill(0)],
    ['fe80::1%eth0', [0xfe, 0x80, ...new Array(13).fill(0), 1]],
    ['2001:db8::1', [0x20, 0x01, 0x0d, 0xb8, ...new Array(11).fill(0), 1]],
    ['1:2:3:4:5:6:7:8', [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]],
    ['1:2:3:4:5:6:1.2.3.4', [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]],
    ['127.1', undefined],
    ['2130706433', undefined],
    ['example.com', undefined],
    ['1.2.3.256', undefined],
    ['', undefined],
  ];
  it.each(cases)('%s', (text, bytes) => {
    const got = parseIp(text);
    expect(got === undefined ? undefined : [...got]).toEqual(bytes);
  });
});

describe('addressKind', () => {
  const cases: [string, AddressKind | undefined][] = [
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['192.0.2.2', 'host'],
    ['::ffff:192.0.2.2', 'host'],
    ['fd00::2', 'host'],
    ['FD00:0:0::2', 'host'],
    ['fe80::fc:ff:fe00:1', 'host'],
    ['10.1.2.3', 'host'],
    ['169.254.169.254', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12::1', 'private'],
    ['fc00::1', 'private'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['192.0.2.3', 'public'],
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
    ['fec0::1', 'private'],
    ['localhost', undefined],
  ];
  it.each(cases)('%s is %s', (address, kind) => {
    expect(addressKind(address, HOST)).toBe(kind);
  });
});

describe('hostMatches', () => {
  const cases: [string, string, boolean][] = [
    ['example.com', 'example.com', true],
    ['EXAMPLE.com.', 'example.com', true],
    ['www.example.com', 'example.com', false],
    ['a.example.com', '*.example.com', true],
    ['a.b.example.com', '*.example.com', true],
    ['example.com', '*.example.com', false],
    ['badexample.com', '*.example.com', false],
    ['example.com.evil.net', '*.example.com', false],
    ['93.184.215.14', '93.184.215.14', true],
    ['93.184.215.14', 'example.com', false],
    ['example.com', '93.184.215.14', false],
    ['2606:4700::1111', '2606:4700:0:0::1111', true],
    ['[2606:4700::1111]', '2606:4700::1111', true],
    ['::ffff:93.184.215.14', '93.184.215.14', true],
  ];
  it.each(cases)('%s against %s: %s', (host, entry, matches) => {
    expect(hostMatches(host, entry)).toBe(matches);
  });
});

describe('destinationVerdict', () => {
  const open: NetRules = { allowLocalPorts: [] };
  const db: NetRules = { allowLocalPorts: [5432] };
  const narrow: NetRules = {
    allowHosts: ['example.com', '*.pkg.dev', '203.0.113.9', 'intranet.corp'],
    allowLocalPorts: [],
  };
  const listedMeta: NetRules = { allowHosts: ['169.254.169.254'], allowLocalPorts: [80] };
  type Row = [string, number, string, NetRules, string | true];
  const cases: Row[] = [
    // This machine: only on allow_local_ports, however it is spelt or named.
    ['127.0.0.1', 5432, '127.0.0.1', open, "this machine's loopback; add 5432 to sandbox.allow_local_ports"],
    ['127.0.0.1', 5432, '127.0.0.1', db, true],
    ['127.0.0.1', 5433, '127.0.0.1', db, "this machine's loopback; add 5433 to sandbox.allow_local_ports"],
    ['localhost', 5432, '::1', db, true],
    ['localhost', 80, '127.0.0.1', open, "resolves to 127.0.0.1, this machine's loopback; add 80 to"],
    ['::ffff:127.0.0.1', 22, '::ffff:127.0.0.1', open, "this machine's loopback"],
    ['0.0.0.0', 5432, '0.0.0.0', db, true],
    ['0.0.0.0', 80, '0.0.0.0', open, "this machine's loopback; add 80"],
    ['192.0.2.2', 22, '192.0.2.2', open, "this machine's own address; add 22 to sandbox.allow_local_ports"],
    ['192.0.2.2', 5432, '192.0.2.2', db, true],
    // DNS rebinding: a listed name that resolves to this machine is this machine.
    ['example.com', 443, '127.0.0.1', narrow, 'resolves to 127.0.0.1, this machine'],
    ['rebind.example', 443, '::ffff:7f00:1', open, 'resolves to ::ffff:7f00:1, this machine'],
    // Never, whatever the rules.
    ['169.254.169.254', 80, '169.254.169.254', open, 'link-local'],
    ['metadata.google.internal', 80, '169.254.169.254', { ...narrow, allowHosts: ['*.internal'] }, 'link-local'],
    ['169.254.169.254', 80, '169.254.169.254', listedMeta, 'link-local'],
    ['fe80::1', 80, 'fe80::1', open, 'link-local'],
    ['224.0.0.251', 5353, '224.0.0.251', open, 'multicast'],
    ['255.255.255.255', 9, '255.255.255.255', open, 'broadcast'],
    ['240.0.0.1', 80, '240.0.0.1', open, 'reserved'],
    // '*' keeps any public host beside the private ones listed.
    ['example.org', 443, '93.184.215.15', { allowHosts: ['*', 'registry.corp'], allowLocalPorts: [] }, true],
    ['registry.corp', 443, '10.9.2.3', { allowHosts: ['*', 'registry.corp'], allowLocalPorts: [] }, true],
    ['wiki.corp', 443, '10.9.2.4', { allowHosts: ['*', 'registry.corp'], allowLocalPorts: [] }, 'not in sandbox'],
    // Public hosts: any without allow_hosts; with it, only what it matches.
    ['example.com', 443, '93.184.215.14', open, true],
    ['93.184.215.14', 443, '93.184.215.14', open, true],
    ['example.com', 443, '93.184.215.14', narrow, true],
    ['www.example.com', 443, '93.184.215.14', narrow, 'not in sandbox.allow_hosts'],
    ['europe.pkg.dev', 443, '142.250.1.1', narrow, true],
    ['pkg.dev', 443, '142.250.1.1', narrow, 'not in sandbox.allow_hosts'],
    ['203.0.113.9', 443, '203.0.113.9', narrow, true],
    ['93.184.215.14', 443, '93.184.215.14', narrow, 'an address asked for directly must be listed'],
    // Private addresses: only when allow_hosts names them.
    ['10.0.0.5', 80, '10.0.0.5', open, 'a private network address; reachable only when sandbox.allow_hosts lists it'],
    ['nas.lan', 80, '192.168.1.10', open, 'resolves to 192.168.1.10, a private network address'],
    ['intranet.corp', 443, '10.20.0.1', narrow, true],
    ['other.corp', 443, '10.20.0.1', narrow, 'not in sandbox.allow_hosts'],
    // Malformed.
    ['example.com', 0, '93.184.215.14', open, 'port 0 is not a port'],
    ['example.com', 70_000, '93.184.215.14', open, 'port 70000 is not a port'],
    ['example.com', 443, 'example.com', open, 'example.com is not an address'],
  ];
  it.each(cases)('%s:%s at %s', (host, port, address, rules, expected) => {
    const v = destinationVerdict({ host, port }, address, rules, HOST);
    if (expected === true) expect(v).toEqual({ ok: true });
    else expect(v.ok ? 'allowed' : v.why).toContain(expected);
  });
});
