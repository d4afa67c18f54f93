// Commands that run another command: sudo, env, nohup, nice, timeout, xargs, busybox, `poetry run`, terminals, … are
// peeled off so the rules see the program that really runs; the ones that raise privileges say so.
// Over 380 lines: one table of wrappers and how each is peeled, with the examples each rule carries.
import { parseOptions, type OptionSpec } from '../options.js';
import type { Rule, RuleExamples, RuleKit, Wrapper } from '../ruleKit.js';
import { isKnown, unknownAs, type Arg, type CommandContext } from '../scanTypes.js';
import { commandVariable } from './escapeRules.js';
import { packages } from './packageRules.js';

/** Options, then optionally `skip` operands (timeout's duration, chroot's directory), then the command. */
function peel(spec: OptionSpec = {}, skip = 0): Wrapper {
  return (argv) => {
    const p = parseOptions(argv.slice(1), { ...spec, posix: true });
    return { argv: argv.slice(1 + p.rest + skip) };
  };
}

function elevate(label: string, spec: OptionSpec, shellFlags: string[] = []): Wrapper {
  return (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), { ...spec, posix: true });
    const rest = argv.slice(1 + p.rest);
    const shell = shellFlags.some((f) => p.flags.has(f)) && rest.length === 0;
    kit.emit(
      c,
      'dangerous',
      'privilege.root',
      shell ? `opens a root shell (${label} ${shellFlags.find((f) => p.flags.has(f))})` : `runs as root (${label})`,
      argv[0],
    );
    if (p.flags.has('-e') && label === 'sudo') for (const f of rest) kit.write(c, f, 'sudo -e');
    return rest.length && !p.flags.has('-e') && !p.flags.has('-l')
      ? { argv: rest, c: { ...c, elevated: true } }
      : undefined;
  };
}

/** `su -c CMD`, `runuser -c CMD`, `sg group -c CMD`: the command is shell text. */
function userSwitch(label: string): Wrapper {
  return (argv, c, kit) => {
    kit.emit(c, 'dangerous', 'privilege.root', `runs as another user (${label})`, argv[0]);
    const p = parseOptions(argv.slice(1), {
      shortValue: 'cgGsuw',
      longValue: ['command', 'group', 'supp-group', 'shell', 'user', 'whitelist-environment'],
    });
    const cmd = p.values.get('-c') ?? p.values.get('--command');
    const at = argv.find((a) => a.value === cmd) ?? argv[0]!;
    if (cmd !== undefined) kit.payload({ ...c, elevated: true }, cmd, at);
    else if (label === 'runuser' && p.values.has('-u')) return { argv: p.operands, c: { ...c, elevated: true } };
    return undefined;
  };
}

const env: Wrapper = (argv, c, kit) => {
  let i = 1;
  const out: Arg[] = [];
  const vars = new Map(c.env);
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    const v = a.value;
    if (v === '--') {
      i++;
      break;
    }
    if (/^(-[iv0]+|--ignore-environment|--null|--debug)$/.test(v)) continue;
    if (/^(-[uCP]|--unset|--chdir)$/.test(v)) {
      i++;
      continue;
    }
    if (/^(-[uCP].|--(unset|chdir|default-signal|ignore-signal|block-signal)=?)/.test(v)) continue;
    const split = /^(?:-S|--split-string=?)(.*)$/s.exec(v);
    if (split) {
      const text = split[1] || argv[++i]?.value || '';
      out.push(
        ...text
          .split(/\s+/)
          .filter(Boolean)
          .map((w) => ({ ...a, value: w.replace(/^['"]|['"]$/g, '') })),
      );
      continue;
    }
    const assign = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(v);
    if (assign) {
      if (assign[1] === 'DOCKER_HOST' || assign[1] === 'DOCKER_CONTEXT')
        kit.emit(c, 'dangerous', 'docker.host', `points docker at another daemon (${v})`, a);
      if (assign[1] === 'LD_PRELOAD')
        kit.emit(c, 'dangerous', 'env.preload', 'loads a library into every program (LD_PRELOAD)', a);
      commandVariable(assign[1]!, { ...a, value: assign[2]! }, c, kit);
      if (isKnown(a)) vars.set(assign[1]!, assign[2]!);
      continue;
    }
    break;
  }
  return { argv: [...out, ...argv.slice(i)], c: vars.size ? { ...c, env: vars } : c };
};

const command: Wrapper = (argv) => {
  const p = parseOptions(argv.slice(1), { posix: true });
  if (p.flags.has('-v') || p.flags.has('-V')) return undefined;
  return { argv: argv.slice(1 + p.rest) };
};

const xargs: Wrapper = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), {
    shortValue: 'IELnPsda',
    longValue: ['max-args', 'max-procs', 'max-chars', 'delimiter', 'arg-file'],
    posix: true,
    digitFlags: true,
  });
  const rest = argv.slice(1 + p.rest);
  // No limit on parallel runs, fed without end (`yes | xargs -P 0 …`), starts processes until the machine stops.
  const procs = p.values.get('-P') ?? p.values.get('--max-procs');
  if (
    procs === '0' &&
    rest.length &&
    c.stdin?.by !== undefined &&
    /^(yes|cat \/dev\/(zero|u?random))$/.test(c.stdin.by)
  )
    kit.emit(
      c,
      'hardline',
      'forkbomb',
      `process flood: unlimited parallel runs of ${rest[0]!.value} fed by ${c.stdin.by}, which never ends`,
      argv[0],
    );
  // `-I R` (or -i, --replace): each input line replaces R in the command, as one word, shell text included
  // (`xargs -I{} sh -c 'rm -rf {}'`); known input is each of its lines, unknown input says so.
  const repl = p.values.get('-I') ?? p.values.get('--replace') ?? (p.flags.has('-i') ? '{}' : undefined);
  if (repl !== undefined && rest.length) {
    const lines = c.stdin?.text?.split('\n').filter((l) => l.trim() !== '');
    const items = lines?.length ? lines.slice(0, 8) : [unknownAs('each line of its input')];
    const cx: CommandContext = { ...c, via: 'xargs' };
    const runs = items.map((item) => rest.map((a) => ({ ...a, value: a.value.replaceAll(repl, item) })));
    for (const argvOf of runs.slice(1)) kit.run(cx, argvOf);
    return { argv: runs[0]!, c: cx };
  }
  // Input known now (`xargs rm -rf <<< /`, `echo / | xargs …`) becomes the arguments it will be.
  const text = c.stdin?.text;
  const extra =
    text !== undefined && rest.length
      ? text
          .split(/\s+/)
          .filter(Boolean)
          .slice(0, 64)
          .map((w) => ({ ...rest[rest.length - 1]!, value: w }))
      : [];
  return rest.length ? { argv: [...rest, ...extra], c: { ...c, via: 'xargs' } } : undefined;
};

const flock: Wrapper = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), {
    shortValue: 'wEc',
    longValue: ['timeout', 'conflict-exit-code', 'command'],
    posix: true,
  });
  const cmd = p.values.get('-c') ?? p.values.get('--command');
  const rest = argv.slice(1 + p.rest + 1);
  if (cmd !== undefined) {
    kit.payload(c, cmd, argv.find((a) => a.value === cmd) ?? argv[0]!);
    return undefined;
  }
  if (rest[0]?.value === '-c' && rest[1]) {
    kit.payload(c, rest[1].value, rest[1]);
    return undefined;
  }
  return { argv: rest };
};

/** `npx rimraf@5 dir` runs `rimraf`; `npx -c 'cmd'` runs shell text. */
const npx: Wrapper = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'pc', longValue: ['package', 'call'], posix: true });
  const call = p.values.get('-c') ?? p.values.get('--call');
  if (call !== undefined) {
    kit.payload(c, call, argv.find((a) => a.value === call) ?? argv[0]!);
    return undefined;
  }
  const rest = argv.slice(1 + p.rest);
  if (rest[0]?.value === 'dlx' || rest[0]?.value === 'exec' || rest[0]?.value === 'run') rest.shift();
  const head = rest[0];
  if (!head) return undefined;
  return {
    argv: [{ ...head, value: head.value.replace(/(.)@[^/]*$/, '$1').replace(/^@[^/]+\//, '') }, ...rest.slice(1)],
  };
};

const taskset: Wrapper = (argv) => {
  const p = parseOptions(argv.slice(1), { shortValue: '', posix: true });
  if (p.flags.has('-p') || p.flags.has('--pid')) return undefined;
  return { argv: argv.slice(1 + p.rest + (p.flags.has('-c') || p.flags.has('--cpu-list') ? 1 : 1)) };
};

const nice: Wrapper = (argv) => {
  let i = 1;
  while (i < argv.length && /^(-\d+|--?adjustment=?.*|-n.*)$/.test(argv[i]!.value))
    i += /^(-n|--adjustment)$/.test(argv[i]!.value) ? 2 : 1;
  if (argv[i]?.value === '--') i++;
  return { argv: argv.slice(i) };
};

const ionice: Wrapper = (argv) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'cnP', longValue: ['class', 'classdata'], posix: true });
  if (p.flags.has('-p') || p.flags.has('--pid') || p.flags.has('-P')) return undefined;
  return { argv: argv.slice(1 + p.rest) };
};

const watch: Wrapper = (argv, c, kit) => {
  const p = parseOptions(argv.slice(1), { shortValue: 'nq', longValue: ['interval', 'differences'], posix: true });
  const rest = argv.slice(1 + p.rest);
  if (rest.length === 1 && isKnown(rest[0]!) && /\s/.test(rest[0]!.value)) {
    kit.payload(c, rest[0]!.value, rest[0]!);
    return undefined;
  }
  return { argv: rest };
};

const enters: Wrapper = (argv, c, kit) => {
  kit.emit(c, 'dangerous', 'privilege.namespace', `enters another process's namespaces (${argv[0]!.value})`, argv[0]);
  return peel({ shortValue: 'tSGw' })(argv, c, kit);
};

/**
 * `poetry run CMD`, `bundle exec CMD`, `aws-vault exec PROFILE -- CMD`: a subcommand that runs the rest. Its other
 * subcommands are judged by `otherwise` (`poetry publish`).
 */
function runs(sub: RegExp, skip = 0, spec: OptionSpec = {}, otherwise?: Rule): Wrapper {
  return (argv, c, kit) => {
    if (!sub.test(argv[1]?.value ?? '')) {
      otherwise?.(argv, c, kit);
      return undefined;
    }
    const rest = argv.slice(2);
    const dash = rest.findIndex((a) => a.value === '--');
    if (dash >= 0) return { argv: rest.slice(dash + 1) };
    const p = parseOptions(rest, { ...spec, posix: true });
    return { argv: rest.slice(p.rest + skip) };
  };
}

export const wrapperTable: Record<string, Wrapper> = {
  sshpass: peel({ shortValue: 'pfdeP' }),
  // Terminals and session tools that run the rest: `xterm -e CMD`, `gnome-terminal -- CMD`, `dtach -n SOCK CMD`.
  xterm: (argv) => {
    const e = argv.findIndex((a) => a.value === '-e');
    return e > 0 ? { argv: argv.slice(e + 1) } : undefined;
  },
  'gnome-terminal': (argv) => {
    const d = argv.findIndex((a) => a.value === '--' || a.value === '-e' || a.value === '-x');
    return d > 0 ? { argv: argv.slice(d + 1) } : undefined;
  },
  konsole: (argv) => {
    const e = argv.findIndex((a) => a.value === '-e');
    return e > 0 ? { argv: argv.slice(e + 1) } : undefined;
  },
  'x-terminal-emulator': (argv) => {
    const e = argv.findIndex((a) => a.value === '-e');
    return e > 0 ? { argv: argv.slice(e + 1) } : undefined;
  },
  dtach: (argv) =>
    /^-[ncA]$/.test(argv[1]?.value ?? '')
      ? {
          argv: argv
            .slice(3)
            .filter((a, i, all) => !(a.value.startsWith('-') && all.slice(0, i).every((b) => b.value.startsWith('-')))),
        }
      : undefined,
  'systemd-inhibit': peel({ longValue: ['what', 'who', 'why', 'mode'] }),
  cgexec: peel({ shortValue: 'g' }),
  perf: runs(/^(stat|record|trace)$/, 0, { shortValue: 'eoCpt', longValue: ['event', 'output', 'cpu', 'pid', 'tid'] }),
  coproc: (argv) => ({ argv: argv.slice(1) }),
  zellij: runs(/^run$/),
  pueue: runs(/^add$/),
  chronic: peel(),
  ifne: peel(),
  nq: peel(),
  tsp: peel(),
  'task-spooler': peel(),
  daemonize: peel({ shortValue: 'aceEijlopuv' }),
  dotenv: (argv) => {
    const dash = argv.findIndex((a) => a.value === '--');
    return {
      argv: dash >= 0 ? argv.slice(dash + 1) : parseOptions(argv.slice(1), { shortValue: 'ecv', posix: true }).operands,
    };
  },
  entr: (argv, c, kit) => {
    const p = parseOptions(argv.slice(1), { posix: true });
    const rest = argv.slice(1 + p.rest);
    if (p.flags.has('-s') && rest[0] && isKnown(rest[0])) {
      kit.payload(c, rest[0].value, rest[0]);
      return undefined;
    }
    return { argv: rest };
  },
  poetry: runs(/^run$/, 0, {}, packages('poetry')),
  pipenv: runs(/^run$/),
  pdm: runs(/^run$/, 0, {}, packages('pdm')),
  rye: runs(/^run$/),
  hatch: runs(/^run$/, 0, {}, packages('hatch')),
  bundle: runs(/^exec$/),
  bundler: runs(/^exec$/),
  uv: runs(
    /^run$/,
    0,
    {
      shortValue: 'p',
      longValue: ['with', 'python', 'project', 'directory', 'env-file', 'extra', 'group', 'package', 'index'],
    },
    packages('uv'),
  ),
  mise: runs(/^(exec|x)$/),
  asdf: runs(/^exec$/),
  op: runs(/^run$/),
  doppler: runs(/^run$/),
  'aws-vault': runs(/^exec$/, 1),
  direnv: runs(/^exec$/, 1),
  prlimit: (argv) => {
    const dash = argv.findIndex((a) => a.value === '--');
    const p = parseOptions(argv.slice(1), { posix: true });
    return p.flags.has('-p') || p.flags.has('--pid')
      ? undefined
      : { argv: dash >= 0 ? argv.slice(dash + 1) : argv.slice(1 + p.rest) };
  },
  setpriv: peel({
    longValue: [
      'reuid',
      'regid',
      'groups',
      'inh-caps',
      'ambient-caps',
      'bounding-set',
      'securebits',
      'selinux-label',
      'apparmor-profile',
      'reset-env',
    ],
  }),
  sudo: elevate(
    'sudo',
    {
      shortValue: 'ugpCDrtTUh',
      longValue: [
        'user',
        'group',
        'prompt',
        'close-from',
        'chdir',
        'role',
        'type',
        'command-timeout',
        'other-user',
        'host',
      ],
    },
    ['-s', '-i'],
  ),
  doas: elevate('doas', { shortValue: 'uC' }, ['-s']),
  pkexec: elevate('pkexec', { longValue: ['user'] }),
  sudoedit: (argv, c, kit) => {
    kit.emit(c, 'dangerous', 'privilege.root', 'edits files as root (sudoedit)', argv[0]);
    for (const f of argv.slice(1)) if (!f.value.startsWith('-')) kit.write(c, f, 'sudoedit');
    return undefined;
  },
  su: userSwitch('su'),
  runuser: userSwitch('runuser'),
  sg: (argv, c, kit) => {
    const cmd = argv.slice(2).find((a) => a.value !== '-c');
    if (cmd)
      kit.payload(
        c,
        argv
          .slice(argv.indexOf(cmd))
          .map((a) => a.value)
          .join(' '),
        cmd,
      );
    return undefined;
  },
  env,
  command,
  builtin: (argv) => ({ argv: argv.slice(1) }),
  nohup: peel(),
  nice,
  ionice,
  timeout: peel({ shortValue: 'sk', longValue: ['signal', 'kill-after'] }, 1),
  gtimeout: peel({ shortValue: 'sk', longValue: ['signal', 'kill-after'] }, 1),
  stdbuf: peel({ shortValue: 'ioe', longValue: ['input', 'output', 'error'] }),
  time: peel({ shortValue: 'fo', longValue: ['format', 'output'] }),
  exec: peel({ shortValue: 'a' }),
  xargs,
  busybox: (argv) => ({ argv: argv.slice(1) }),
  toybox: (argv) => ({ argv: argv.slice(1) }),
  chroot: peel({ longValue: ['userspec', 'groups'] }, 1),
  setsid: peel(),
  flock,
  unbuffer: peel(),
  caffeinate: peel({ shortValue: 'tw' }),
  watch,
  strace: peel({ shortValue: 'eopsuSPIabE' }),
  ltrace: peel({ shortValue: 'eopsuSnaA' }),
  valgrind: peel(),
  nsenter: enters,
  unshare: enters,
  taskset,
  chrt: peel({}, 1),
  numactl: peel({ shortValue: 'CNmMpi' }),
  fakeroot: peel(),
  proxychains: peel({ shortValue: 'f' }),
  proxychains4: peel({ shortValue: 'f' }),
  torsocks: peel(),
  tsocks: peel(),
  firejail: peel(),
  eatmydata: peel(),
  nocache: peel(),
  catchsegv: peel(),
  faketime: peel({}, 1),
  'dbus-run-session': peel(),
  'xvfb-run': peel({ shortValue: 'nsfe' }),
  'systemd-run': peel({ shortValue: 'pEMH' }),
  npx,
  bunx: npx,
  pnpx: npx,
  uvx: npx,
  noglob: peel(),
  nocorrect: peel(),
};

export type { CommandContext, RuleKit };

export const wrapperExamples: RuleExamples = {
  'privilege.root': { match: ['sudo ls /root', 'doas -s', 'su -c "id" bob'], notMatch: ['id'] },
  'privilege.namespace': { match: ['nsenter -t 1 -m -u -i -n sh'], notMatch: ['ps -p 1'] },
  'env.preload': { match: ['env LD_PRELOAD=/tmp/x.so ls', 'LD_PRELOAD=/tmp/x.so ls'], notMatch: ['env FOO=1 ls'] },
  forkbomb: { match: ['yes | xargs -P 0 -n 1 sleep', ':(){ :|:& };:'], notMatch: ['seq 4 | xargs -P 4 -n 1 echo'] },
};
