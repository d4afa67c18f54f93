// The scanner's own checks (not a command's rule), with their examples: run with the rules' by ruleExamples.test.ts.
import type { RuleExamples } from './ruleKit.js';

export const scannerExamples: RuleExamples = {
  'command.computed': { match: ['$(echo $CMD) -rf x', '"$TOOL" build'], notMatch: ['$(echo rm) notes.txt'] },
  'network.devtcp': {
    match: ['cat < /dev/tcp/203.0.113.7/80', 'echo hi > /dev/udp/10.0.0.1/53'],
    notMatch: ['cat /dev/null'],
  },
  'parse.failed': { match: ['echo "unclosed'], notMatch: ['echo "closed"'] },
  'power.sysrq': { match: ['echo b > /proc/sysrq-trigger'], notMatch: ['cat /proc/loadavg'] },
  'profile.read': {
    match: ['cat ~/.switchboard/core.json', 'tar czf x.tgz ~/.switchboard'],
    notMatch: ['cat ~/.switchboard/config.yaml', 'ls ~/.switchboard'],
  },
  'profile.tree': { match: ['grep -r token ~', 'tar czf home.tgz ~'], notMatch: ['grep -r token src'] },
  'profile.write': {
    match: ["echo '{}' > ~/.switchboard/approvals.json", 'rm -rf ~/.switchboard'],
    notMatch: ['echo x > notes/.switchboard/config.yaml'],
  },
  'git.exec-path': { match: ['git --exec-path=/tmp/git status'], notMatch: ['git --exec-path'] },
  'disk.fill': { match: ['yes > big.txt', 'cat /dev/zero > fill.bin'], notMatch: ['yes | head -3 > y.txt'] },
  // Indirect targets: a function's $1, `sh -c '…' _ ARG`, find -exec's {} and xargs -I's input, resolved or said.
  'delete.vital': {
    match: [
      'f() { rm -rf "$1"; }; f ~',
      'run() { "$@"; }; run rm -rf /',
      'sh -c \'rm -rf "$1"\' _ ~',
      'find ~ -maxdepth 0 -exec sh -c \'rm -rf "$0"\' {} \\;',
      "echo / | xargs -I{} sh -c 'rm -rf {}'",
    ],
    notMatch: ['f() { rm -rf "$1"; }; f dist', "echo dist | xargs -I{} sh -c 'rm -rf {}'"],
  },
  'delete.xargs': {
    match: ['git ls-files | xargs -I{} sh -c \'rm "{}"\''],
    notMatch: ["ls | xargs -I{} sh -c 'wc -l {}'"],
  },
  forkbomb: {
    match: ['while true; do sleep 1 & done', 'for i in $(seq 1 100000); do sleep 9 & done'],
    notMatch: ['while true; do sleep 1; done'],
  },
};
