// The network: cloud metadata endpoints (in any spelling of their address), remote shells (`ssh host CMD`
// is classified as shell), and listeners that hand out a shell (nc -e, socat exec:).
import { parseOptions } from '../options.js';
import type { Rule, RuleExamples, RuleKit } from '../ruleKit.js';
import { isKnown, type Arg, type CommandContext } from '../scanTypes.js';

const metadataHosts = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '100.100.100.200',
  '192.0.0.192',
  'fd00:ec2::254',
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

/** What a word must hold to name one of metadataHosts in any spelling (an address has digits). */
const mayNameMetadata = /\d|metadata|instance-data/i;

/** inet_aton's reading of a host: `2852039166`, `0xa9fea9fe`, `0251.0376.0251.0376`, `169.254.43518`. */
export function ipv4(host: string): string | undefined {
  const parts = host.split('.');
  if (parts.length < 1 || parts.length > 4 || !parts.every((p) => /^(0x[0-9a-f]+|0[0-7]*|[1-9]\d*)$/i.test(p)))
    return undefined;
  const nums = parts.map((p) => (/^0x/i.test(p) ? parseInt(p, 16) : /^0\d/.test(p) ? parseInt(p, 8) : Number(p)));
  let value = 0;
  for (let i = 0; i < nums.length - 1; i++) value = value * 256 + nums[i]!;
  const lastBytes = 4 - (nums.length - 1);
  value = value * 256 ** lastBytes + nums[nums.length - 1]!;
  if (value > 0xffffffff) return undefined;
  return [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
}

function hostsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[/@\s=:'"[])([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\])(?=[:/\s'"?#\]]|$)/g))
    out.push(m[1]!.replace(/^\[|\]$/g, '').toLowerCase());
  return out;
}

export function metadataHost(text: string): string | undefined {
  for (const h of hostsIn(text)) {
    if (metadataHosts.has(h) && (h !== 'metadata' || /https?:\/\/metadata[/:]/.test(text))) return h;
    // Wildcard DNS names that resolve to the address they spell (169.254.169.254.nip.io).
    const spelled = /^(\d+\.\d+\.\d+\.\d+)\.(nip\.io|sslip\.io|xip\.io|traefik\.me|localtest\.me)$/.exec(h);
    if (spelled && metadataHosts.has(spelled[1]!)) return h;
    const ip = ipv4(h);
    if (ip && metadataHosts.has(ip) && /[.x]|^\d{8,}$/.test(h)) return `${h}${ip !== h ? ` = ${ip}` : ''}`;
  }
  return undefined;
}

export function checkArgsForMetadata(argv: Arg[], c: CommandContext, kit: RuleKit): void {
  for (const a of argv) {
    // Every spelling of a metadata host has a digit or names metadata/instance-data: other words need no host scan.
    if (isKnown(a) ? !mayNameMetadata.test(a.value) : !/169\.254|metadata/.test(a.source)) continue;
    const host = metadataHost(isKnown(a) ? a.value : a.source);
    if (host)
      return kit.emit(
        c,
        'dangerous',
        'network.metadata',
        `reaches the cloud metadata endpoint, where machine credentials live (${host})`,
        a,
      );
  }
}

const sshCommandOption = new RegExp(
  String.raw`^\s*(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand|PKCS11Provider|` +
    String.raw`SecurityKeyProvider)\s*[= ]\s*([\s\S]+)$`,
  'i',
);

/** `-o ProxyCommand=…` (and LocalCommand, KnownHostsCommand, …) is a command line ssh runs on this machine. */
export function sshOptionCommands(argv: Arg[], c: CommandContext, kit: RuleKit): void {
  argv.forEach((a, i) => {
    const opt = a.value === '-o' ? argv[i + 1] : /^-o./.test(a.value) ? { ...a, value: a.value.slice(2) } : undefined;
    const m = opt && sshCommandOption.exec(opt.value);
    if (m && opt && isKnown(opt) && !/^remotecommand$/i.test(m[1]!) && m[2]!.trim() !== 'none')
      kit.payload(c, m[2]!.replace(/%[a-z%]/g, 'x'), opt);
  });
}

const ssh: Rule = (argv, c, kit) => {
  sshOptionCommands(argv, c, kit);
  const p = parseOptions(argv.slice(1), { shortValue: 'bcDEeFIiJLlmOopQRSWw', posix: true });
  const rest = argv.slice(1 + p.rest + 1);
  if (rest.length === 0) return;
  const text = rest.map((a) => a.value).join(' ');
  if (rest.every(isKnown))
    kit.payload(
      { ...c, scope: { ...c.scope, cwd: undefined, state: c.scope.state } },
      text,
      rest.length === 1 ? rest[0]! : { ...rest[0]!, source: '', end: rest[rest.length - 1]!.end },
    );
};

/** nc, ncat, netcat, socat: what they print came over the network (fetched); one that hands out a shell asks. */
const listener: Rule = (argv, c, kit) => {
  const name = argv[0]!.value.replace(/.*\//, '');
  if (argv.some((a) => /^(-e|-c|--exec|--sh-exec|--lua-exec)$/.test(a.value) || /^(exec|system):/i.test(a.value))) {
    kit.emit(
      c,
      'dangerous',
      'network.shell',
      `serves a shell over the network (${name} ${argv.find((a) => /^-e|^-c|exec|system/i.test(a.value))!.value})`,
    );
  }
  return { fetched: true, by: name };
};

export const networkRules: Record<string, Rule> = {
  ssh,
  scp: sshOptionCommands,
  sftp: sshOptionCommands,
  nc: listener,
  ncat: listener,
  netcat: listener,
  socat: listener,
};

export const networkExamples: RuleExamples = {
  'network.metadata': {
    match: [
      'curl http://169.254.169.254/latest/meta-data/',
      'curl http://0xa9fea9fe/',
      'wget -qO- metadata.google.internal',
    ],
    notMatch: ['curl http://localhost:8080/metadata'],
  },
  'network.shell': {
    match: ['nc -lvp 4444 -e /bin/bash', 'socat tcp-listen:9000 exec:sh'],
    notMatch: ['nc -zv localhost 5432'],
  },
};
