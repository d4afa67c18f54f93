// The machine itself: disks (mkfs, wipefs, fdisk, dd), power (shutdown, reboot, init 0), every process
// (kill -1, killall5, pkill .) and init (kill 1), services and what starts at boot, firewall, users, cron and kernel
// modules.
import { hasAny, parseOptions } from '../options.js';
import { isBlockDevice } from '../paths.js';
import type { RuleExamples, Rule } from '../ruleKit.js';
import { shown, type Arg } from '../scanTypes.js';
import { clobber } from './writeRules.js';
import type { RuleId } from '../ruleIds.js';

const onDevice =
  (label: string, listFlags: string[] = []): Rule =>
  (argv, c, kit) => {
    const args = argv.slice(1);
    if (listFlags.length && args.some((a) => listFlags.includes(a.value))) return;
    const dev = args.find((a) => isBlockDevice(kit.path(c, a)));
    if (dev) kit.emit(c, 'hardline', 'disk.format', `erases the disk device ${kit.path(c, dev)} (${label})`, dev);
    else kit.emit(c, 'dangerous', 'disk.format', `rewrites a disk or filesystem (${label})`);
  };

const dd: Rule = (argv, c, kit) => {
  // From an endless source with no count=, dd writes until the disk is full.
  const endless =
    argv.some((a) => /^if=\/dev\/(zero|u?random)$/.test(a.value)) &&
    !argv.some((a) => /^(count|iflag=count_bytes)=/.test(a.value) || /^count=/.test(a.value));
  for (const a of argv.slice(1)) {
    const m = /^of=(.*)$/s.exec(a.value);
    if (m) {
      kit.write(c, { ...a, value: m[1]! }, 'dd');
      // dd rewrites the file from its start (and truncates it unless conv=notrunc).
      clobber(kit, c, { ...a, value: m[1]! }, 'dd of=', true);
      if (
        endless &&
        !/^\/dev\/null$/.test(kit.path(c, { ...a, value: m[1]! })) &&
        !isBlockDevice(kit.path(c, { ...a, value: m[1]! }))
      )
        kit.emit(
          c,
          'dangerous',
          'disk.fill',
          `fills the disk: dd from an endless source without count= (${a.value})`,
          a,
        );
    }
  }
};

const power =
  (label: string): Rule =>
  (argv, c, kit) => {
    if (label === 'shutdown' && argv.some((a) => a.value === '-c' || a.value === '--help')) return;
    kit.emit(c, 'hardline', 'power.off', `shuts down or restarts the machine (${label})`);
  };

const init: Rule = (argv, c, kit) => {
  const level = argv[1]?.value;
  if (level === '0' || level === '6')
    kit.emit(
      c,
      'hardline',
      'power.off',
      `shuts down or restarts the machine (${commandLabel(argv)} ${level})`,
      argv[1],
    );
};

function commandLabel(argv: Arg[]): string {
  return argv[0]!.value.slice(argv[0]!.value.lastIndexOf('/') + 1);
}

const killSignals = /^(-9|-KILL|-SIGKILL|-s\s*(9|KILL|SIGKILL)|-n\s*9|--signal=(9|KILL|SIGKILL))$/i;

const kill: Rule = (argv, c, kit) => {
  const args = argv.slice(1);
  if (args.length === 1 && args[0]!.value === '-1')
    return kit.emit(c, 'hardline', 'kill.all', 'kills every process it can (kill -1)', args[0]);
  let i = 0;
  let strong = false;
  let mild = false;
  let signal: string | undefined;
  while (i < args.length && args[i]!.value.startsWith('-')) {
    const v = args[i]!.value;
    if (v === '--') {
      i++;
      break;
    }
    if (v === '-l' || v === '-L') return;
    const joined = (v === '-s' || v === '-n') && args[i + 1] ? `${v} ${args[i + 1]!.value}` : v;
    signal = joined;
    if (killSignals.test(joined)) strong = true;
    if (/^-(s\s*|n\s*|-signal=)?(SIG)?(HUP|USR1|USR2|CONT|WINCH|0|1|10|12|18|28)$/i.test(joined)) mild = true;
    i += v === '-s' || v === '-n' ? 2 : 1;
    // One signal option; what follows is a pid, even `-1`.
    if (v === '-s' || v === '-n' || /^-\w+$/.test(v)) break;
  }
  const pids = args.slice(i);
  const all = pids.find((a) => a.value === '-1');
  if (all)
    return kit.emit(c, 'hardline', 'kill.all', `kills every process it can (kill ${strong ? '-9 ' : ''}-1)`, all);
  const init = pids.find((a) => a.value === '1');
  // Killing init takes every process with it (the whole container, or a kernel panic on a host); HUP, USR1/2 and
  // CONT ask it to reload or resume.
  if (init && !mild)
    return kit.emit(
      c,
      'hardline',
      'kill.init',
      `kills process 1, the init process, and everything with it (kill ${signal ?? ''}${signal ? ' ' : ''}1)`,
      init,
    );
  if (init) return kit.emit(c, 'dangerous', 'kill.init', 'signals process 1, the init process (kill 1)', init);
  if (strong)
    kit.emit(c, 'dangerous', 'kill.force', `force-kills ${pids.map(shown).join(' ') || 'a process'} (kill -9)`);
};

/** A pattern that matches every process name (`pkill .`, `killall -r '.*'`) kills them all, like kill -1. */
const killByName =
  (label: string): Rule =>
  (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), {
      shortValue: 'sugtUPGFn',
      longValue: [
        'signal',
        'euid',
        'uid',
        'group',
        'terminal',
        'parent',
        'pgroup',
        'session',
        'pidfile',
        'ns',
        'nslist',
        'older-than',
        'younger-than',
      ],
      digitFlags: true,
    });
    const all =
      p.operands.find((o) => /^(\.\*?|\^|\.\+|\^\.\*\$?|\[\^?\]?[a-z-]*\]\*?)$/.test(o.value)) ??
      (label === 'pkill' && (p.flags.has('-v') || p.flags.has('--inverse')) ? p.operands[0] : undefined);
    if (all && p.operands.length <= 1 && !p.values.has('-u') && !p.values.has('-P') && !p.values.has('--parent'))
      return kit.emit(
        c,
        'hardline',
        'kill.all',
        `kills every process it can: the pattern ${all.value} matches them all (${label})`,
        all,
      );
    kit.emit(c, 'dangerous', 'kill.byname', `kills processes by name (${label})`);
  };

const systemctl: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), {
    shortValue: 'tspHMn',
    longValue: ['type', 'state', 'property', 'host', 'machine', 'signal', 'lines', 'output', 'root'],
  });
  const verb = p.operands[0]?.value;
  if (!verb) return;
  if (
    /^(poweroff|reboot|halt|kexec|soft-reboot|emergency|rescue)$/.test(verb) ||
    (verb === 'isolate' && /^(poweroff|reboot|halt|rescue|emergency)\.target$/.test(p.operands[1]?.value ?? ''))
  ) {
    return kit.emit(
      c,
      'hardline',
      'power.off',
      `shuts down or restarts the machine (systemctl ${verb})`,
      p.operands[0],
    );
  }
  // A unit enabled (or linked, or made the default target) starts again at every boot: persistence.
  if (/^(suspend|hibernate|hybrid-sleep|suspend-then-hibernate|sleep)$/.test(verb))
    return kit.emit(
      c,
      'dangerous',
      'power.sleep',
      `puts the machine to sleep, out of reach (systemctl ${verb})`,
      p.operands[0],
    );
  if (/^(enable|link|preset|preset-all|set-default|add-wants|add-requires|edit|revert|set-property)$/.test(verb)) {
    return kit.emit(
      c,
      'dangerous',
      'service.persist',
      `makes ${
        p.operands.slice(1).map(shown).join(' ') || 'a unit'
      } start at boot or changes how it runs (systemctl ${verb})`,
      p.operands[0],
    );
  }
  if (
    /^(stop|disable|mask|kill|isolate|daemon-reexec)$/.test(verb) ||
    (verb === 'restart' &&
      /^(sshd?|networking|NetworkManager|systemd-networkd|docker|firewalld)(\.service)?$/.test(
        p.operands[1]?.value ?? '',
      ))
  ) {
    kit.emit(
      c,
      'dangerous',
      'service.stop',
      `${verb === 'restart' ? 'restarts' : 'stops or disables'} ${
        p.operands.slice(1).map(shown).join(' ') || 'a service'
      } (systemctl ${verb})`,
      p.operands[0],
    );
  }
};

const service: Rule = (argv, c, kit) => {
  const action = argv[2]?.value;
  if (action && /^(stop|disable|mask|kill)$/.test(action))
    kit.emit(c, 'dangerous', 'service.stop', `stops ${argv[1]!.value} (service ${action})`, argv[2]);
};

const iptablesChanges =
  /^(-F|--flush|-X|--delete-chain|-P|--policy|-A|--append|-I|--insert|-D|--delete|-R|--replace|-Z|-N|-E)$/;

/** Any change to the firewall can cut the machine off (a DROP, `ufw enable` without an ssh rule) or open it up. */
const firewall: Rule = (argv, c, kit) => {
  const args = argv.slice(1).map((a) => a.value);
  const name = commandLabel(argv);
  const words = args.filter((a) => !a.startsWith('-'));
  const changes =
    name === 'ufw'
      ? words.length > 0 && !/^(status|show|app|version|help)$/.test(words[0]!)
      : name === 'nft'
        ? words.some((w) => /^(add|insert|delete|destroy|flush|replace|create|reset)$/.test(w)) || args.includes('-f')
        : name === 'firewall-cmd'
          ? args.some((a) =>
              /^--(add|remove|panic|set|change|new|delete|reload|complete-reload|runtime-to-permanent|direct)/.test(a),
            )
          : args.some((a) => iptablesChanges.test(a));
  if (changes) kit.emit(c, 'dangerous', 'firewall.open', `changes firewall rules (${name} ${args.join(' ')})`.trim());
};

const ask =
  (rule: RuleId, text: string): Rule =>
  (_argv, c, kit) =>
    kit.emit(c, 'dangerous', rule, text);

const crontab: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'u' });
  if (p.flags.has('-l')) return;
  if (p.flags.has('-r')) return kit.emit(c, 'dangerous', 'cron.change', 'deletes every scheduled job (crontab -r)');
  kit.emit(c, 'dangerous', 'cron.change', 'replaces the scheduled jobs (crontab)');
};

const modprobe: Rule = (argv, c, kit) => {
  if (hasAny(parseOptions(argv.slice(1)), '-r', '--remove') || commandLabel(argv) !== 'modprobe')
    kit.emit(c, 'dangerous', 'kernel.module', `loads or removes a kernel module (${commandLabel(argv)})`);
};

const setenforce: Rule = (argv, c, kit) => {
  if (argv[1]?.value === '0' || argv[1]?.value.toLowerCase() === 'permissive')
    kit.emit(c, 'dangerous', 'security.off', 'turns SELinux enforcement off (setenforce 0)');
};

export const systemRules: Record<string, Rule> = {
  mkfs: onDevice('mkfs'),
  mke2fs: onDevice('mke2fs'),
  mkswap: onDevice('mkswap'),
  wipefs: onDevice('wipefs'),
  fdisk: onDevice('fdisk', ['-l', '--list']),
  sfdisk: onDevice('sfdisk', ['-l', '--list', '-d', '--dump']),
  cfdisk: onDevice('cfdisk'),
  gdisk: onDevice('gdisk', ['-l']),
  sgdisk: onDevice('sgdisk', ['-p', '--print']),
  parted: onDevice('parted', ['-l', '--list', 'print']),
  blkdiscard: onDevice('blkdiscard'),
  badblocks: onDevice('badblocks'),
  hdparm: onDevice('hdparm', ['-I', '-i', '-t', '-T']),
  cryptsetup: onDevice('cryptsetup', ['status', 'isLuks', 'luksDump']),
  zpool: onDevice('zpool', ['status', 'list', 'iostat']),
  dd,
  shutdown: power('shutdown'),
  reboot: power('reboot'),
  halt: power('halt'),
  poweroff: power('poweroff'),
  kexec: power('kexec'),
  init,
  telinit: init,
  kill,
  pkill: killByName('pkill'),
  killall: killByName('killall'),
  killall5: (argv, c, kit) =>
    kit.emit(
      c,
      'hardline',
      'kill.all',
      `kills every process outside its own session (killall5${argv[1] ? ` ${argv[1].value}` : ''})`,
    ),
  skill: killByName('skill'),
  slay: killByName('slay'),
  systemctl,
  service,
  iptables: firewall,
  ip6tables: firewall,
  nft: firewall,
  ufw: firewall,
  'firewall-cmd': firewall,
  'iptables-restore': ask('firewall.open', 'replaces firewall rules (iptables-restore)'),
  useradd: ask('users.change', 'changes user accounts (useradd)'),
  userdel: ask('users.change', 'deletes a user account (userdel)'),
  usermod: ask('users.change', 'changes a user account (usermod)'),
  deluser: ask('users.change', 'deletes a user account (deluser)'),
  passwd: ask('users.change', 'changes a password (passwd)'),
  chpasswd: ask('users.change', 'changes passwords (chpasswd)'),
  visudo: ask('users.change', 'edits who may use sudo (visudo)'),
  groupdel: ask('users.change', 'deletes a group (groupdel)'),
  crontab,
  insmod: modprobe,
  rmmod: modprobe,
  modprobe,
  setenforce,
  swapoff: ask('disk.swap', 'turns swap off (swapoff)'),
  launchctl: (argv, c, kit) => {
    const verb = argv[1]?.value ?? '';
    if (/^(unload|bootout|remove|disable|stop)$/.test(verb))
      kit.emit(c, 'dangerous', 'service.stop', `stops or removes a service (launchctl ${verb})`);
    else if (/^(load|bootstrap|enable|submit|setenv|config)$/.test(verb))
      kit.emit(
        c,
        'dangerous',
        'service.persist',
        `installs a service that starts at login or boot (launchctl ${verb})`,
      );
  },
  'update-rc.d': ask('service.persist', 'changes which services start at boot (update-rc.d)'),
  chkconfig: (argv, c, kit) => {
    if (argv.length > 2)
      kit.emit(c, 'dangerous', 'service.persist', 'changes which services start at boot (chkconfig)');
  },
  'rc-update': (argv, c, kit) => {
    if (/^(add|del|delete)$/.test(argv[1]?.value ?? ''))
      kit.emit(c, 'dangerous', 'service.persist', `changes which services start at boot (rc-update ${argv[1]!.value})`);
  },
};

export const systemExamples: RuleExamples = {
  'disk.format': { match: ['mkfs.ext4 /dev/sdb1', 'fdisk /dev/sda'], notMatch: ['fdisk -l'] },
  'disk.overwrite': {
    match: ['dd if=/dev/zero of=/dev/sda bs=1M'],
    notMatch: ['dd if=/dev/zero of=disk.img bs=1M count=10'],
  },
  'power.off': { match: ['shutdown -h now', 'systemctl reboot', 'init 0'], notMatch: ['systemctl status nginx'] },
  'power.sleep': { match: ['systemctl suspend'], notMatch: ['systemctl is-active sleep.target'] },
  'kill.all': { match: ['kill -9 -1', 'pkill -9 .'], notMatch: ['kill 12345'] },
  'kill.init': { match: ['kill -9 1', 'kill 1'], notMatch: ['kill 12345', 'kill %1'] },
  'kill.force': { match: ['kill -9 1234'], notMatch: ['kill -TERM 1234'] },
  'kill.byname': { match: ['pkill node', 'killall -9 python3'], notMatch: ['pgrep node'] },
  'service.persist': { match: ['systemctl enable --now backdoor.service'], notMatch: ['systemctl status app'] },
  'service.stop': {
    match: ['systemctl stop nginx', 'service nginx stop'],
    notMatch: ['systemctl restart app', 'service nginx status'],
  },
  'firewall.open': { match: ['iptables -F', 'ufw disable'], notMatch: ['iptables -L'] },
  'cron.change': { match: ['crontab -r', 'crontab jobs.txt'], notMatch: ['crontab -l'] },
  'kernel.module': { match: ['modprobe -r e1000'], notMatch: ['lsmod'] },
  'security.off': { match: ['setenforce 0'], notMatch: ['getenforce'] },
  'users.change': { match: ['useradd bob', 'passwd bob'], notMatch: ['whoami'] },
};
