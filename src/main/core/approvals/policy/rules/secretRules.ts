// Secrets: any command handed a private key or credentials file reads it (cat, base64, scp, curl -F @, nc <, tar),
// and what it reads ends up with the agent or on another host; commands that print stored secrets; ssh-copy-id.
import { resolvePath, secretRead } from '../paths.js';
import { commandName, type Rule, type RuleExamples, type RuleKit } from '../ruleKit.js';
import { isKnown, type Arg, type CommandContext } from '../scanTypes.js';
import type { RuleId } from '../ruleIds.js';
import { remoteCli } from './remoteRules.js';

/** Commands that name a file without reading what is in it (is a Core running: `test -f …/core.json`). */
export const pathNamers = [
  'ls',
  'stat',
  'test',
  '[',
  '[[',
  'echo',
  'printf',
  'basename',
  'dirname',
  'realpath',
  'readlink',
  'file',
];

/** Commands that name a path without reading what is in it, or that use a key without showing it. */
export const namesOnly = new Set([
  ...pathNamers,
  'du',
  'cd',
  'pushd',
  'mkdir',
  'chmod',
  'chown',
  'chgrp',
  'touch',
  'ssh-add',
  'ssh-keygen',
  'lsattr',
  'getfacl',
  'namei',
  'exa',
  'eza',
  'tree',
  'rm',
  'shred',
  'unlink',
  'find',
  'fd',
  'which',
  'type',
  'command',
]);
/** Options whose value is a key or config the program uses for itself (`ssh -i key`, `--kubeconfig`). */
const usesKey = new RegExp(
  '^(-i|-I|--identity|--identity-file|--key|--kubeconfig|--config|--cert|--cacert|--key-file|' +
    '--private-key|--keyfile|--credentials-file|--ssh-key)$',
);
const usesKeyInline = new RegExp(
  '^(-i.|-oIdentityFile=|IdentityFile=|--(identity|identity-file|key|kubeconfig|config|cert|cacert|' +
    'key-file|private-key|keyfile|credentials-file|ssh-key)=)',
  'i',
);

/** Flags every argument (and `< file`) that names a secret, unless the command only names it or uses it as a key. */
export function checkSecretReads(argv: Arg[], c: CommandContext, kit: RuleKit): void {
  const names = argv.map((a) => (isKnown(a) ? commandName(a.value) : ''));
  // The program that runs, past a wrapper like sudo or timeout: the next word that is a bare name.
  const after = kit.isWrapper(names[0]!)
    ? names.findIndex((n, i) => i > 0 && n !== '' && /^[a-z][\w.+-]*$/.test(argv[i]!.value))
    : 0;
  const program = names[Math.max(after, 0)];
  // find and fd only name files, unless they run a command on each (`find ~/.ssh -exec cat {} +`).
  if (
    program &&
    namesOnly.has(program) &&
    !(
      /^(find|fd)$/.test(program) &&
      argv.some((a) => /^-(exec|execdir|ok|okdir|x|X|-exec|-exec-batch|fprint0?|fprintf|fls)$/.test(a.value))
    )
  )
    return;
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (usesKey.test(argv[i - 1]!.value) || usesKeyInline.test(a.value)) continue;
    // A word with spaces or code in it that is not a path (`-e "ssh -i ~/.ssh/k"`, `-c "open('…')"`) is a command
    // line or a program; the code rules read the paths in a program.
    if (/[\s'"();{}]/.test(a.value) && !/^[/~]/.test(a.value)) continue;
    // `if=FILE`, `--data=@FILE`, `-F f=@FILE`, `host:FILE` name a file after their prefix.
    // A mount spec (`-v ~/.ssh:/k`) hands its host side to a container.
    const values = [
      a.value,
      ...[
        /^(?:[a-z]+=|--[\w-]+=)@?(.+)$/.exec(a.value)?.[1],
        /^[^=@]*=?@(.+)$/.exec(a.value)?.[1],
        /^([/~][^:]*):/.exec(a.value)?.[1],
        /(?:^|,)(?:source|src)=([^,]+)/.exec(a.value)?.[1],
      ].filter((v): v is string => !!v),
    ];
    for (const v of values) {
      const value = v.replace(/^~(?=\/|$)/, c.scope.state.home);
      // A bare word (`status`, `pytest`) is looked at as written: only what reads as a path is worth a probe of the
      // target for the links on its way (git status must not cost a round trip).
      const why = secretRead(
        /[/]|^\./.test(value) ? kit.path(c, { ...a, value }) : resolvePath(value, c.scope.cwd, c.scope.state.home),
      );
      if (why) {
        kit.emit(
          c,
          'dangerous',
          'secret.read',
          `reads ${v}: ${why} (${names[0] === '<' ? '<' : (program ?? names[0])})`,
          a,
        );
        break;
      }
    }
  }
}

const ask =
  (rule: RuleId, text: string): Rule =>
  (_argv, c, kit) =>
    kit.emit(c, 'dangerous', rule, text);

/** Asks when any argument matches: the subcommand or flag that prints a stored secret. */
const printsSecret =
  (label: string, when: RegExp): Rule =>
  (argv, c, kit) => {
    const hit = argv.slice(1).find((a) => when.test(a.value));
    if (hit) kit.emit(c, 'dangerous', 'secret.read', `prints stored secrets (${label} ${hit.value})`, hit);
  };

export const secretRules: Record<string, Rule> = {
  // vault's and gh's verbs are remoteCliTable's; here, the ones that print a secret.
  vault: remoteCli('vault', (argv, c, kit) => {
    const w = argv
      .slice(1)
      .map((a) => a.value)
      .filter((v) => !v.startsWith('-'));
    if (w[0] === 'read' || (w[0] === 'kv' && w[1] === 'get'))
      kit.emit(
        c,
        'dangerous',
        'secret.read',
        `prints a stored secret (vault ${w.slice(0, w[0] === 'kv' ? 2 : 1).join(' ')})`,
      );
  }),
  'ssh-copy-id': ask('secret.install', 'installs an SSH key on another host, for lasting access (ssh-copy-id)'),
  gpg: printsSecret('gpg', /^--export-secret-(sub)?keys$|^--export-ownertrust$/),
  gpg2: printsSecret('gpg', /^--export-secret-(sub)?keys$/),
  security: printsSecret('security', /^(dump-keychain|find-generic-password|find-internet-password|export)$/),
  'secret-tool': printsSecret('secret-tool', /^lookup$/),
  pass: printsSecret('pass', /^show$/),
  gh: remoteCli('gh', (argv, c, kit) => {
    if (argv[1]?.value === 'auth' && argv[2]?.value === 'token')
      kit.emit(c, 'dangerous', 'secret.read', 'prints the GitHub token (gh auth token)', argv[2]);
  }),
};

export const secretExamples: RuleExamples = {
  'secret.read': {
    match: [
      'cat ~/.ssh/id_rsa',
      'base64 ~/.aws/credentials',
      'vault kv get secret/db',
      'gh auth token',
      'pass show email',
    ],
    notMatch: ['cat ~/.ssh/id_rsa.pub', 'ls ~/.ssh', 'ssh -i ~/.ssh/id_rsa host uptime', 'cat ~/.aws/config'],
  },
  'secret.install': { match: ['ssh-copy-id deploy@203.0.113.9'], notMatch: ['ssh deploy@203.0.113.9 uptime'] },
};
