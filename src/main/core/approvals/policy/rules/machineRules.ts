// What keeps a machine reachable and its accounts its own: mounts, network links and routes, swap, kernel
// settings, the clock, volumes; users, groups, capabilities and login shells. Listing them stays quiet.
import { parseOptions } from '../options.js';
import type { Rule, RuleExamples } from '../ruleKit.js';
import type { Arg } from '../scanTypes.js';
import type { RuleId } from '../ruleIds.js';

const ask =
  (rule: RuleId, text: string): Rule =>
  (_argv, c, kit) =>
    kit.emit(c, 'dangerous', rule, text);

/** Asks unless the arguments only list or show (`mount`, `mount -l`, `swapon --show`). */
const unlessListing =
  (rule: RuleId, text: string, listing: RegExp): Rule =>
  (argv, c, kit) => {
    const args = argv.slice(1).map((a) => a.value);
    if (args.length === 0 || args.every((a) => listing.test(a))) return;
    kit.emit(c, 'dangerous', rule, `${text} (${argv[0]!.value} ${args.join(' ')})`.trim());
  };

const ipChangingObjects = new RegExp(
  '^(l|li|lin|link|a|ad|add|addr|address|r|ro|rou|route|ru|rule|n|neigh|netns|tunnel|tuntap|xfrm|' +
    'mroute|maddr|nexthop|vrf|token)$',
);

/** `ip OBJECT ACTION …`: changing actions on links, addresses, routes and rules cut the machine off. */
const ip: Rule = (argv, c, kit) => {
  const words = argv.slice(1).filter((a) => !a.value.startsWith('-') || /^-(batch|b)$/.test(a.value));
  const object = words[0]?.value ?? '';
  const action = words[1]?.value ?? '';
  if (/^-(batch|b)$/.test(object))
    return kit.emit(c, 'dangerous', 'network.change', 'changes the network from a batch file (ip -batch)');
  // ip takes any prefix of an action (`ip r del`, `ip l s` = link set); a lone `s` elsewhere is `show`.
  const changes =
    action !== '' &&
    ['add', 'append', 'prepend', 'change', 'replace', 'delete', 'flush', 'set', 'attach', 'detach', 'down', 'up'].some(
      (w) => w.startsWith(action) && (w !== 'set' || action.length > 1 || /^l/.test(object)),
    );
  if (ipChangingObjects.test(object) && changes) {
    kit.emit(
      c,
      'dangerous',
      'network.change',
      `changes network ${object === 'r' || object.startsWith('ro') ? 'routes' : 'settings'} (ip ${words
        .slice(0, 4)
        .map((w) => w.value)
        .join(' ')})`,
    );
  }
};

const ifconfig: Rule = (argv, c, kit) => {
  const args = argv.slice(1).filter((a) => !/^-[as]$/.test(a.value));
  if (args.length >= 2)
    kit.emit(
      c,
      'dangerous',
      'network.change',
      `changes a network interface (ifconfig ${args.map((a) => a.value).join(' ')})`,
    );
};

/** nmcli: anything that turns off, deletes, disconnects or modifies. */
const nmcli: Rule = (argv, c, kit) => {
  const words = argv
    .slice(1)
    .map((a) => a.value)
    .filter((w) => !w.startsWith('-'));
  if (words.some((w) => /^(down|delete|del|disconnect|modify|mod|off|reload|import)$/.test(w)))
    kit.emit(c, 'dangerous', 'network.change', `changes the network (nmcli ${words.join(' ')})`);
};

const route: Rule = (argv, c, kit) => {
  if (argv.some((a) => /^(add|del|delete|flush|change)$/.test(a.value)))
    kit.emit(
      c,
      'dangerous',
      'network.change',
      `changes network routes (route ${argv
        .slice(1)
        .map((a) => a.value)
        .join(' ')})`,
    );
};

const sysctl: Rule = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'p' });
  if (
    p.flags.has('-w') ||
    p.flags.has('--write') ||
    p.flags.has('-p') ||
    p.flags.has('--load') ||
    p.flags.has('--system') ||
    p.operands.some((o) => o.value.includes('='))
  ) {
    kit.emit(
      c,
      'dangerous',
      'kernel.setting',
      `changes kernel settings (sysctl ${argv
        .slice(1)
        .map((a) => a.value)
        .join(' ')})`,
    );
  }
};

/** `date -s`, `date --set`, or an MMDDhhmm operand sets the clock; formats (`+%s`) only print. */
const date: Rule = (argv, c, kit) => {
  if (argv.slice(1).some((a) => /^(-s|--set)(=|$)/.test(a.value) || /^\d{8,12}(\.\d\d)?$/.test(a.value)))
    kit.emit(c, 'dangerous', 'clock.set', 'sets the system clock (date -s)');
};

const subcommandAsks =
  (label: string, verbs: RegExp, rule: RuleId, text: string): Rule =>
  (argv, c, kit) => {
    const verb = argv.slice(1).find((a) => !a.value.startsWith('-'));
    if (verb && verbs.test(verb.value)) kit.emit(c, 'dangerous', rule, `${text} (${label} ${verb.value})`, verb);
  };

/** What a chattr flag change means, in words, when it is one a person should know of. */
const chattrMeaning = (flags: string): string =>
  flags.includes('i') ? ' (immutable: nothing may change or delete it)' : flags.includes('a') ? ' (append-only)' : '';

/** `chattr` changes flags that make files undeletable (+i), append-only (+a), or removes them. */
const chattr: Rule = (argv, c, kit) => {
  const files = argv.slice(1).filter((a) => !/^[-+=][a-zA-Z]+$/.test(a.value) && !/^-[RVfv]+$/.test(a.value));
  if (files.some((f) => kit.profileChange(c, f, 'chattr'))) return;
  const attr = argv.slice(1).find((a) => /^[-+=][aAcCdDeEFijmPsStTux]+$/.test(a.value));
  if (attr)
    kit.emit(
      c,
      'dangerous',
      'chattr.change',
      `changes file attributes ${attr.value}${chattrMeaning(attr.value)} (chattr)`,
      attr,
    );
};

function usersLabel(argv: Arg[]): string {
  return argv[0]!.value.slice(argv[0]!.value.lastIndexOf('/') + 1);
}

const accounts =
  (text: string): Rule =>
  (argv, c, kit) => {
    if (argv.slice(1).some((a) => /^(-h|--help|-V|--version)$/.test(a.value))) return;
    kit.emit(c, 'dangerous', 'users.change', `${text} (${usersLabel(argv)})`);
  };

export const machineRules: Record<string, Rule> = {
  mount: unlessListing(
    'mount.change',
    'mounts or remounts a filesystem',
    /^(-l|--list|-h|--help|-V|--version|-t|[a-z0-9]+fs|ext[234]|tmpfs|xfs|btrfs|nfs4?|overlay|cgroup2?|proc|sysfs)$/,
  ),
  umount: ask('mount.change', 'unmounts a filesystem (umount)'),
  unmount: ask('mount.change', 'unmounts a filesystem (unmount)'),
  diskutil: subcommandAsks(
    'diskutil',
    /^(unmount|unmountDisk|eject|erase\w*|partitionDisk|reformat|zeroDisk|randomDisk|secureErase|apfs)$/,
    'mount.change',
    'unmounts or erases a disk',
  ),
  ip,
  ifconfig,
  nmcli,
  route,
  networksetup: (argv, c, kit) => {
    const v = argv[1]?.value ?? '';
    if (/^-(set|remove|delete|create)/i.test(v))
      kit.emit(c, 'dangerous', 'network.change', `changes the network (networksetup ${v})`);
  },
  pfctl: (argv, c, kit) => {
    if (argv.some((a) => /^-[a-zA-Z]*[dFfeE]/.test(a.value)))
      kit.emit(c, 'dangerous', 'firewall.open', 'changes the packet filter (pfctl)');
  },
  ifdown: ask('network.change', 'takes a network interface down (ifdown)'),
  ifup: ask('network.change', 'changes a network interface (ifup)'),
  'wg-quick': subcommandAsks('wg-quick', /^down$/, 'network.change', 'takes a VPN link down'),
  rfkill: subcommandAsks('rfkill', /^block$/, 'network.change', 'turns radios off'),
  tc: subcommandAsks('tc', /^(qdisc|filter|class)$/, 'network.change', 'changes traffic control'),
  ethtool: (argv, c, kit) => {
    if (argv.some((a) => /^-(s|K|G|A|C|L|E|p)$|^--(change|features|offload)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'network.change', 'changes a network device (ethtool)');
  },
  brctl: subcommandAsks('brctl', /^(delbr|delif|addbr|addif)$/, 'network.change', 'changes a network bridge'),
  swapon: unlessListing('disk.swap', 'turns swap on', /^(-s|--summary|--show(=.*)?|--noheadings|--bytes)$/),
  sysctl,
  date,
  hwclock: (argv, c, kit) => {
    if (argv.some((a) => /^(--set|-w|--systohc|-s|--hctosys|--adjust)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'clock.set', 'sets the clock (hwclock)');
  },
  timedatectl: subcommandAsks(
    'timedatectl',
    /^(set-time|set-timezone|set-ntp|set-local-rtc)$/,
    'clock.set',
    'changes the clock',
  ),
  hostnamectl: subcommandAsks('hostnamectl', /^(set-hostname|hostname)$/, 'host.rename', 'renames the machine'),
  chattr,
  lvremove: ask('disk.volume', 'deletes a logical volume (lvremove)'),
  vgremove: ask('disk.volume', 'deletes a volume group (vgremove)'),
  pvremove: ask('disk.volume', 'wipes a physical volume (pvremove)'),
  lvreduce: ask('disk.volume', 'shrinks a logical volume (lvreduce)'),
  dmsetup: subcommandAsks(
    'dmsetup',
    /^(remove|remove_all|wipe_table|clear)$/,
    'disk.volume',
    'removes a device-mapper device',
  ),
  mdadm: (argv, c, kit) => {
    if (argv.some((a) => /^(--stop|-S|--remove|-r|--fail|-f|--zero-superblock|--create|-C)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'disk.volume', 'changes a RAID array (mdadm)');
  },
  losetup: (argv, c, kit) => {
    if (argv.some((a) => /^(-d|-D|--detach|--detach-all)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'disk.volume', 'detaches loop devices (losetup -d)');
  },
  zfs: subcommandAsks(
    'zfs',
    /^(destroy|rollback|unmount|umount|rename)$/,
    'disk.volume',
    'destroys or rolls back a dataset',
  ),
  btrfs: (argv, c, kit) => {
    if (argv.some((a) => /^(delete|del)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'disk.volume', 'deletes a btrfs subvolume');
  },
  adduser: accounts('adds a user account or adds a user to a group'),
  addgroup: accounts('adds a group'),
  groupadd: accounts('adds a group'),
  groupmod: accounts('changes a group'),
  gpasswd: accounts('changes group membership or its password'),
  chsh: accounts("changes a user's login shell"),
  chfn: accounts("changes a user's account details"),
  chage: accounts('changes password expiry'),
  vipw: accounts('edits the user database'),
  vigr: accounts('edits the group database'),
  newusers: accounts('adds user accounts in bulk'),
  pwconv: accounts('rewrites the shadow password file'),
  setcap: accounts('gives a program capabilities, a partial root'),
  dscl: (argv, c, kit) => {
    if (argv.some((a) => /^-(create|append|delete|passwd|change|merge)$/.test(a.value)))
      kit.emit(c, 'dangerous', 'users.change', 'changes the directory of users and groups (dscl)');
  },
  sysadminctl: accounts('changes user accounts'),
  smbpasswd: accounts('changes a Samba password'),
  pw: subcommandAsks(
    'pw',
    /^(useradd|userdel|usermod|groupadd|groupdel|groupmod|lock)$/,
    'users.change',
    'changes user accounts',
  ),
  loginctl: subcommandAsks(
    'loginctl',
    /^(terminate-user|terminate-session|kill-user|kill-session|disable-linger|enable-linger)$/,
    'users.change',
    "ends a user's sessions or keeps them running",
  ),
};

export const machineExamples: RuleExamples = {
  'mount.change': { match: ['mount /dev/sdb1 /mnt', 'umount /mnt/data'], notMatch: ['mount', 'mount -l'] },
  'network.change': {
    match: ['ip link set eth0 down', 'ip route del default', 'ifconfig eth0 down'],
    notMatch: ['ip addr show', 'ip r', 'ifconfig'],
  },
  'disk.swap': { match: ['swapon /swapfile', 'swapoff -a'], notMatch: ['swapon --show'] },
  'kernel.setting': { match: ['sysctl -w net.ipv4.ip_forward=1'], notMatch: ['sysctl net.ipv4.ip_forward'] },
  'clock.set': {
    match: ['date -s "2020-01-01"', 'timedatectl set-time 12:00'],
    notMatch: ['date +%s', 'timedatectl status'],
  },
  'host.rename': { match: ['hostnamectl set-hostname web1'], notMatch: ['hostnamectl status'] },
  'chattr.change': { match: ['chattr +i config.yaml'], notMatch: ['lsattr config.yaml'] },
  'disk.volume': { match: ['lvremove /dev/vg0/data', 'zfs destroy tank/data'], notMatch: ['zfs list'] },
  'users.change': { match: ['groupadd devs', 'chsh -s /bin/zsh'], notMatch: ['id', 'groups'] },
  'firewall.open': { match: ['pfctl -d'], notMatch: ['pfctl -s rules'] },
};
