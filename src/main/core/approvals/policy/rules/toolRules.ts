// Developer tools with destructive subcommands: git (reset --hard, push --force, clean -f, branch -D),
// docker and podman (rm, stop, kill, prune, -H/--host), kubectl delete, and package removal.
// Over 380 lines: one rule family, a rule per tool, each with its examples (ruleExamples.test.ts).
import { hasAny, parseOptions, subcommand } from '../options.js';
import type { Rule, RuleExamples, RuleKit } from '../ruleKit.js';
import { isKnown, shown, type Arg, type CommandContext } from '../scanTypes.js';
import { prodWord, remoteCli } from './remoteRules.js';
import { secretFile } from './leakRules.js';

/** Config keys whose value git runs as a command (the `!` of an alias or helper marks shell text). */
const commandKeys = new RegExp(
  String.raw`^(core\.(pager|editor|sshcommand|askpass|gitproxy)|sequence\.editor|diff\.external|gpg\.program|` +
    String.raw`gpg\.\w+\.program|pager\..+|interactive\.difffilter|filter\..+\.(clean|smudge|process)|` +
    String.raw`merge\..+\.driver|diff\..+\.(textconv|command)|difftool\..+\.cmd|mergetool\..+\.cmd|` +
    String.raw`uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|sendemail\.(tocmd|cccmd|` +
    'smtpserver))$',
);

/**
 * A config setting that runs something: with `-c` for this command, or stored (`git config`) for every later one.
 * Known command text is classified; a hooks directory outside the repository, an fsmonitor hook, an included
 * config file or the `ext::` transport ask whatever they name.
 */
function gitSetting(kit: RuleKit, c: CommandContext, key: string, value: Arg, how: string): void {
  const k = key.toLowerCase();
  const v = value.value;
  if (commandKeys.test(k) || ((/^alias\./.test(k) || /^credential\.(.+\.)?helper$/.test(k)) && v.startsWith('!'))) {
    const program = v.replace(/^!\s*/, '').split(/\s+/)[0] ?? '';
    // A script by path (not a program from a system bin directory) is code the command line does not show.
    if (
      isKnown(value) &&
      program.includes('/') &&
      !/^\/(usr\/(local\/)?s?bin|s?bin|opt\/homebrew\/bin|Applications)\//.test(program)
    )
      kit.emit(c, 'dangerous', 'git.config', `makes git run the script ${program} (${how} ${key})`, value);
    if (isKnown(value)) kit.payload(c, v.replace(/^!/, ''), value);
    else kit.emit(c, 'dangerous', 'git.config', `sets ${key} to a command known only at run time (${how})`, value);
  } else if (/^http\.(.+\.)?sslverify$/.test(k) && /^(false|0|no|off)$/i.test(v)) {
    kit.emit(c, 'dangerous', 'security.off', `turns off TLS certificate checks for git (${how} ${key} ${v})`, value);
  } else if (/^credential\.(.+\.)?helper$/.test(k) && /^store\b/.test(v)) {
    kit.emit(
      c,
      'dangerous',
      'security.off',
      `stores git credentials in plain text in ~/.git-credentials (${how} ${key} store)`,
      value,
    );
  } else if (k === 'core.fsmonitor' && !/^(true|false|0|1|yes|no)$/i.test(v)) {
    kit.emit(c, 'dangerous', 'git.config', `makes git run ${v} on every command (${how} core.fsmonitor)`, value);
  } else if (
    k === 'core.hookspath' &&
    (v.startsWith('/') || v.startsWith('~') || v.startsWith('..')) &&
    v !== '/dev/null'
  ) {
    kit.emit(c, 'dangerous', 'git.config', `makes git run hooks from ${v} (${how} core.hooksPath)`, value);
  } else if (/^include(if\..+)?\.path$/.test(k) || (/^protocol\.(ext\.)?allow$/.test(k) && v === 'always')) {
    kit.emit(c, 'dangerous', 'git.config', `sets ${key}, which can make git run commands (${how})`, value);
  }
}

/** Remotes that deploy what is pushed to them. */
const deployRemote = /^(heroku|dokku|production|prod|live|staging|deploy|fly|render|azure|pantheon|scalingo|clever)$/i;

const gitForcedPush =
  /^(-f|--forc|--force|--force-with-lease|--force-if-includes|--mirror|--delete|--dele|--delet|-d|--prune)$/;

const git: Rule = (argv, c, kit) => {
  const { sub, args, globals } = subcommand(
    argv,
    /^(-C|-c|--git-dir|--work-tree|--namespace|--exec-path|--config-env)$/,
  );
  const name = sub?.value;
  globals.forEach((g, i) => {
    const pair = g.value === '-c' ? globals[i + 1] : undefined;
    const m = pair ? /^([^=]+)=([\s\S]*)$/.exec(pair.value) : undefined;
    if (pair && m) gitSetting(kit, c, m[1]!, { ...pair, value: m[2]! }, 'git -c');
  });
  if (args.some((a) => /^ext::/.test(a.value)))
    kit.emit(c, 'dangerous', 'git.config', 'runs a command as its transport (git ext:: URL)');
  // A repository or work tree in the profile (a plugin's checkout) is the profile: git changes it.
  globals.forEach((g, i) => {
    const dir = /^(-C|--git-dir|--work-tree)$/.test(g.value)
      ? globals[i + 1]
      : /^--(git-dir|work-tree)=/.test(g.value)
        ? { ...g, value: g.value.replace(/^--[a-z-]+=/, '') }
        : undefined;
    if (dir) kit.profileChange(c, dir, `git ${g.value.replace(/=.*$/, '')}`);
  });
  if (name === 'clone' || name === 'init' || name === 'submodule' || name === 'worktree') {
    const ops = parseOptions(args, {
      shortValue: 'obcjuC',
      longValue: [
        'origin',
        'branch',
        'config',
        'jobs',
        'upload-pack',
        'template',
        'separate-git-dir',
        'reference',
        'depth',
        'filter',
      ],
    }).operands;
    const dest = name === 'clone' ? ops[1] : name === 'init' ? ops[0] : ops[ops.length - 1];
    if (dest) kit.profileChange(c, dest, `git ${name}`);
  }
  const p = parseOptions(args, {
    shortValue: 'mCcFoXeSsb',
    longValue: [
      'message',
      'file',
      'author',
      'date',
      'cleanup',
      'strategy',
      'exclude',
      'repo',
      'receive-pack',
      'push-option',
    ],
  });
  const emit = (text: string): void => kit.emit(c, 'dangerous', `git.${name}`, text, sub);
  switch (name) {
    case 'reset':
      if (hasAny(p, '--hard', '--merge', '--keep'))
        emit(`discards uncommitted changes (git reset ${[...p.flags].find((f) => /hard|merge|keep/.test(f))})`);
      break;
    case 'push': {
      const forced = [...p.flags].find((f) => gitForcedPush.test(f) || f.startsWith('--force-with-lease'));
      const plus = p.operands.find((o) => /^\+/.test(o.value));
      const colon = p.operands.find((o) => /^:[^:]/.test(o.value));
      if (forced === '--delete' || forced === '-d' || colon)
        emit(`deletes a remote branch (git push ${forced ?? colon!.value})`);
      else if (forced || plus) emit(`rewrites remote history (git push ${forced ?? plus!.value})`);
      // A push to a deploy remote (heroku, dokku, production …) is a deploy.
      const remote = p.operands[0];
      if (remote && isKnown(remote) && (deployRemote.test(remote.value) || prodWord.test(remote.value)))
        emit(`deploys: pushes to the deploy remote ${remote.value} (git push ${p.operands.map(shown).join(' ')})`);
      break;
    }
    case 'add': {
      const secret = p.operands.find((o) => isKnown(o) && secretFile(kit.path(c, o)));
      if (secret)
        emit(`stages ${shown(secret)}, ${secretFile(kit.path(c, secret))}, to be committed and pushed (git add)`);
      break;
    }
    case 'clean':
      // `-X` alone removes only what .gitignore ignores: generated output, not work.
      if (hasAny(p, '-f', '--force') && !hasAny(p, '-n', '--dry-run') && !(p.flags.has('-X') && !p.flags.has('-x')))
        emit(
          `deletes untracked files (git clean ${args
            .map((a) => a.value)
            .filter((v) => v.startsWith('-'))
            .join(' ')})`,
        );
      break;
    case 'branch':
      if (p.flags.has('-D') || (hasAny(p, '-d', '--delete') && hasAny(p, '-f', '--force')))
        emit(`force-deletes branch ${p.operands.map((o) => o.value).join(' ')} (git branch -D)`);
      break;
    case 'checkout':
    case 'restore':
      if (
        (hasAny(p, '-f', '--force') && name === 'checkout') ||
        p.operands.some((o) => o.value === '.' || o.value === ':/')
      )
        emit(`discards uncommitted changes (git ${name} ${args.map((a) => a.value).join(' ')})`);
      break;
    case 'stash':
      if (p.operands[0]?.value === 'clear') emit('deletes every stash (git stash clear)');
      if (p.operands[0]?.value === 'drop')
        emit(`deletes the stash ${p.operands[1]?.value ?? 'stash@{0}'} and the changes in it (git stash drop)`);
      break;
    case 'switch':
      if (hasAny(p, '--discard-changes', '-f', '--force'))
        emit(`discards uncommitted changes (git switch ${args.map((a) => a.value).join(' ')})`);
      break;
    case 'worktree':
      if (p.operands[0]?.value === 'remove' && hasAny(p, '-f', '--force'))
        emit(`deletes the worktree ${p.operands[1]?.value ?? ''} and its uncommitted changes (git worktree remove -f)`);
      break;
    case 'filter-branch':
    case 'filter-repo':
      emit(`rewrites the repository's history (git ${name})`);
      break;
    case 'reflog':
      if (p.operands[0]?.value === 'expire' || p.operands[0]?.value === 'delete')
        emit(`deletes recovery points (git reflog ${p.operands[0].value})`);
      break;
    case 'update-ref':
      if (hasAny(p, '-d')) emit('deletes a ref (git update-ref -d)');
      break;
    case 'config': {
      // `git config [--global] KEY VALUE` and `git config set KEY VALUE`; reads, unsets and lists change nothing run.
      const q = parseOptions(args, {
        shortValue: 'f',
        longValue: ['file', 'blob', 'type', 'default', 'comment', 'value'],
      });
      const ops = q.operands[0]?.value === 'set' ? q.operands.slice(1) : q.operands;
      if (
        ops.length >= 2 &&
        isKnown(ops[0]!) &&
        !hasAny(q, '--get', '--get-all', '--get-regexp', '--unset', '--unset-all', '-l', '--list', '--remove-section')
      )
        gitSetting(kit, c, ops[0]!.value, ops[1]!, 'git config');
      break;
    }
    case 'rebase': {
      const exec = args.findIndex((a) => /^(-x|--exec)$/.test(a.value));
      const cmd =
        exec >= 0
          ? args[exec + 1]
          : args.map((a) => /^--exec=([\s\S]+)$/.exec(a.value)).find(Boolean)
            ? {
                ...args.find((a) => a.value.startsWith('--exec='))!,
                value: args.find((a) => a.value.startsWith('--exec='))!.value.slice(7),
              }
            : undefined;
      if (cmd && isKnown(cmd)) kit.payload(c, cmd.value, cmd);
      break;
    }
    case 'credential':
      if (p.operands[0]?.value === 'fill') emit('prints stored credentials (git credential fill)');
      break;
    case 'difftool':
    case 'grep': {
      const flag = name === 'difftool' ? /^(-x|--extcmd)$/ : /^(-O|--open-files-in-pager)$/;
      const at = args.findIndex((a) => flag.test(a.value));
      const inline = args.find((a) =>
        (name === 'difftool' ? /^--extcmd=/ : /^(-O.|--open-files-in-pager=)/).test(a.value),
      );
      const cmd =
        at >= 0 && name === 'difftool'
          ? args[at + 1]
          : inline
            ? { ...inline, value: inline.value.replace(/^(-O|--[a-z-]+=)/, '') }
            : undefined;
      if (cmd && isKnown(cmd)) kit.payload(c, cmd.value, cmd);
      break;
    }
    case 'bisect':
      if (args[0]?.value === 'run' && args.length > 1) kit.run(c, args.slice(1));
      break;
    case 'submodule': {
      const at = args.findIndex((a) => a.value === 'foreach');
      const cmd = at >= 0 ? args.slice(at + 1).filter((a) => !a.value.startsWith('--')) : [];
      if (cmd.length && cmd.every(isKnown)) kit.payload(c, cmd.map((a) => a.value).join(' '), cmd[0]!);
      break;
    }
  }
  // The commands that talk to a remote run the program named by --upload-pack/--receive-pack/--exec on the other
  // end, which for a local path is this machine. Judged apart from the switch: push also has its own case above.
  if (name !== undefined && ['clone', 'fetch', 'pull', 'ls-remote', 'archive', 'push'].includes(name)) {
    const pack = args.findIndex((a) => /^(-u|--upload-pack|--receive-pack|--exec)$/.test(a.value));
    const inline = args.find((a) => /^--(upload-pack|receive-pack|exec)=/.test(a.value));
    const cmd =
      pack >= 0 ? args[pack + 1] : inline ? { ...inline, value: inline.value.replace(/^--[a-z-]+=/, '') } : undefined;
    if (cmd && isKnown(cmd)) kit.payload(c, cmd.value, cmd);
  }
};

const dockerVerbs = /^(rm|rmi|stop|kill|down|prune)$/;

/** What a docker verb removes or stops, named: `web db`, or `the containers $(docker ps -aq) names`. */
function dockerTargets(verb: string, rest: Arg[]): string {
  const noun = /^(rmi|image)/.test(verb)
    ? 'images'
    : /^volume/.test(verb)
      ? 'volumes'
      : /^network/.test(verb)
        ? 'networks'
        : /prune|down/.test(verb)
          ? ''
          : 'containers';
  if (/prune/.test(verb))
    return verb.startsWith('system') ? 'containers, images, networks and caches' : `${verb.split(' ')[0]}s`;
  const volumes = rest.some((a) => /^(-v|--volumes)$/.test(a.value));
  if (/down/.test(verb)) return `the compose project's containers and networks${volumes ? ', and its volumes' : ''}`;
  const named = rest.filter((a) => !a.value.startsWith('-'));
  const unknown = named.filter((a) => !isKnown(a)).map(shown);
  const known = named.filter(isKnown).map((a) => a.value);
  const one = known.length === 1 ? noun.replace(/s$/, '') : noun;
  return (
    [
      ...(known.length ? [`${one} ${known.join(' ')}`] : []),
      ...(unknown.length ? [`the ${noun} that ${unknown.join(' ')} names`] : []),
    ].join(' and ') || noun
  );
}

const dockerManagementGroups = new RegExp(
  '^(container|image|volume|network|system|builder|buildx|compose|node|service|stack|secret|' +
    'config|plugin|context)$',
);

const dockerValueFlags = new RegExp(
  '^(-H|--host|-c|--context|--config|-l|--log-level|--tlscacert|--tlscert|--tlskey|-f|--file|-p|' +
    '--project-name|--project-directory|--env-file|--profile)$',
);

const docker =
  (label: string): Rule =>
  (argv, c, kit) => {
    const { sub, args, globals } = subcommand(argv, dockerValueFlags);
    const host = globals.find((g) => /^(-H|--host|--context|-c)(=|$)/.test(g.value));
    if (host)
      kit.emit(
        c,
        'dangerous',
        'docker.host',
        `points ${label} at another daemon ` +
          `(${host.value}${host.value.includes('=') ? '' : ' ' + (globals[globals.indexOf(host) + 1]?.value ?? '')})`,
        host,
      );
    if (!sub) return;
    let verb = sub.value;
    let rest = args;
    if (dockerManagementGroups.test(verb) && rest[0]) {
      verb = `${verb} ${rest[0].value}`;
      rest = rest.slice(1);
    }
    const last = verb.split(' ').pop()!;
    if (dockerVerbs.test(last) || last === 'remove' || last === 'delete') {
      const does = /prune/.test(last)
        ? 'deletes unused'
        : last === 'down'
          ? 'removes'
          : /stop|kill/.test(last)
            ? 'stops'
            : 'deletes';
      const flags = rest.filter((a) => a.value.startsWith('-')).map((a) => ` ${a.value}`);
      return kit.emit(
        c,
        'dangerous',
        'docker.destroy',
        `${does} ${dockerTargets(verb, rest)} (${label} ${verb}${flags.join('')})`,
        sub,
      );
    }
    if (last === 'run' || last === 'create') return dockerRun(label, rest, c, kit);
    if (last === 'login') {
      const registry = rest.find(
        (a) =>
          !a.value.startsWith('-') && !/^(-u|--username|-p|--password)$/.test(rest[rest.indexOf(a) - 1]?.value ?? ''),
      );
      return kit.emit(
        c,
        'dangerous',
        'remote.change',
        `signs in to ${registry ? shown(registry) : 'Docker Hub'} and stores its credentials (${label} login)`,
        sub,
      );
    }
    // An image pushed is public (or shared) at once: `docker push`, `docker image push`, `buildx build --push`.
    const pushed =
      last === 'push' || (/build/.test(verb) && rest.some((a) => /^--push$|^--output=.*push=true/.test(a.value)));
    if (pushed) {
      const image =
        last === 'push'
          ? rest.find((a) => !a.value.startsWith('-'))
          : rest.find((_a, i) => /^(-t|--tag)$/.test(rest[i - 1]?.value ?? ''));
      const name = image ? shown(image) : 'an image';
      const registry = /^[^/]+[.:][^/]*\//.test(name) ? name.slice(0, name.indexOf('/')) : 'Docker Hub';
      return kit.emit(c, 'dangerous', 'publish.package', `publishes ${name} to ${registry} (${label} ${verb})`, sub);
    }
    if (last === 'exec') {
      const p = parseOptions(rest, {
        shortValue: 'euwd',
        longValue: ['env', 'user', 'workdir', 'detach-keys', 'env-file'],
        posix: true,
      });
      const inner = rest.slice(p.rest + 1);
      if (inner.length) kit.run(c, inner);
    }
  };

function dockerRun(label: string, args: Arg[], c: CommandContext, kit: RuleKit): void {
  const p = parseOptions(args, {
    shortValue: 'vepuwhlmcaiIt',
    longValue: [
      'volume',
      'mount',
      'env',
      'name',
      'user',
      'workdir',
      'network',
      'net',
      'pid',
      'ipc',
      'cap-add',
      'device',
      'entrypoint',
      'label',
      'memory',
      'cpus',
      'hostname',
      'platform',
      'restart',
      'env-file',
      'publish',
      'security-opt',
      'userns',
      'uts',
    ],
    posix: true,
  });
  const values = (k: string): string[] =>
    args.flatMap((a, i) =>
      a.value === k ? [args[i + 1]?.value ?? ''] : a.value.startsWith(`${k}=`) ? [a.value.slice(k.length + 1)] : [],
    );
  const mounts = [...values('-v'), ...values('--volume'), ...values('--mount')];
  const hostRoot = mounts.find((m) =>
    /^(\/|\/etc|\/root|\/var\/run\/docker\.sock|\/run\/docker\.sock|\/home)(:|,|$)|source=\/(,|$)|src=\/(,|$)/.test(m),
  );
  if (p.flags.has('--privileged'))
    kit.emit(c, 'dangerous', 'docker.escape', `gives a container full access to the host (${label} run --privileged)`);
  else if (hostRoot)
    kit.emit(
      c,
      'dangerous',
      'docker.escape',
      `mounts host ${hostRoot.split(':')[0]} into a container (${label} run -v ${hostRoot})`,
    );
  else if ([...values('--pid'), ...values('--cap-add')].some((v) => /^(host|SYS_ADMIN|ALL)$/i.test(v)))
    kit.emit(c, 'dangerous', 'docker.escape', `gives a container host privileges (${label} run)`);
}

/**
 * kubectl's own checks beside its remote table entry (remoteCliTable.ts: its verbs, deletes, production): printing a
 * secret's values, and the command `exec -- CMD` runs in the pod, judged as shell.
 */
const kubectlOwn: Rule = (argv, c, kit) => {
  const { sub, args } = subcommand(argv, /^(-n|--namespace|--context|--kubeconfig|-s|--server|--cluster|--user)$/);
  if (
    sub &&
    /^(get|edit)$/.test(sub.value) &&
    args.some((a) => /^(secrets?|secret\/.+|secrets\/.+)$/.test(a.value)) &&
    (sub.value === 'edit' ||
      args.some(
        (a, i) =>
          /^(-o|--output)(=|$)/.test(a.value) &&
          !/^(-o|--output)=?(name|wide)?$/.test(a.value + (a.value.includes('=') ? '' : (args[i + 1]?.value ?? ''))),
      ))
  ) {
    kit.emit(
      c,
      'dangerous',
      'secret.read',
      `prints the values of cluster secrets (kubectl ${sub.value} secret -o)`,
      sub,
    );
  }
  if (sub?.value === 'exec') {
    const dash = args.findIndex((a) => a.value === '--');
    if (dash >= 0) kit.run(c, args.slice(dash + 1));
  }
};

/** Cloud CLIs printing a stored secret; their verbs are remoteCliTable's. */
const cloudSecrets =
  (label: string): Rule =>
  (argv, c, kit) => {
    const words = argv
      .slice(1)
      .map((a) => a.value)
      .filter((v) => !v.startsWith('-'));
    // Printing a stored secret or a live token hands it to the agent (`aws secretsmanager get-secret-value`).
    const read = words.find(
      (w) =>
        /^(get-secret-value|batch-get-secret-value|get-parameters?|get-parameters-by-path)$/.test(w) ||
        (label === 'gcloud' && w === 'access' && words.includes('secrets')) ||
        (label === 'az' && /^(show|download)$/.test(w) && words.includes('secret')),
    );
    if (read && (!/^get-parameter/.test(read) || argv.some((a) => a.value === '--with-decryption')))
      kit.emit(c, 'dangerous', 'secret.read', `prints a stored secret (${label} ${read})`);
  };

export const toolRules: Record<string, Rule> = {
  aws: remoteCli('aws', cloudSecrets('aws')),
  gcloud: remoteCli('gcloud', cloudSecrets('gcloud')),
  az: remoteCli('az', cloudSecrets('az')),
  git,
  docker: docker('docker'),
  podman: docker('podman'),
  nerdctl: docker('nerdctl'),
  'docker-compose': docker('docker-compose'),
  kubectl: remoteCli('kubectl', kubectlOwn),
  oc: remoteCli('oc', kubectlOwn),
};

export const toolExamples: RuleExamples = {
  'git.reset': { match: ['git reset --hard origin/main'], notMatch: ['git reset HEAD~1', 'git reset --soft HEAD~1'] },
  'git.push': {
    match: [
      'git push --force origin main',
      'git push origin +main',
      'git push origin --delete old',
      'git push origin :old',
      'git push heroku main',
      'git push production main',
    ],
    notMatch: ['git push', 'git push -u origin feature'],
  },
  'git.clean': { match: ['git clean -fd', 'git clean -fdx'], notMatch: ['git clean -n', 'git clean -fdX'] },
  'git.switch': { match: ['git switch --discard-changes main'], notMatch: ['git switch main'] },
  'git.worktree': {
    match: ['git worktree remove --force ../wt'],
    notMatch: ['git worktree remove ../wt', 'git worktree add ../wt'],
  },
  'git.branch': { match: ['git branch -D old'], notMatch: ['git branch -d merged'] },
  'git.checkout': { match: ['git checkout -- .', 'git checkout -f main'], notMatch: ['git checkout -b feature'] },
  'git.restore': { match: ['git restore .'], notMatch: ['git restore --staged src/a.ts'] },
  'git.add': {
    match: ['git add .env', 'git add -f .env.production'],
    notMatch: ['git add src', 'git add .env.example'],
  },
  'security.off': {
    match: ['git config --global http.sslVerify false', 'git config --global credential.helper store'],
    notMatch: ['git config --global credential.helper cache', 'git config http.sslVerify true'],
  },
  'remote.change': {
    match: ['docker login ghcr.io -u me --password-stdin'],
    notMatch: ['docker pull ghcr.io/acme/web'],
  },
  'git.stash': {
    match: ['git stash clear', 'git stash drop', 'git stash drop stash@{2}'],
    notMatch: ['git stash', 'git stash pop', 'git stash list'],
  },
  'git.filter-branch': { match: ['git filter-branch --tree-filter "rm -f secrets" HEAD'] },
  'git.reflog': { match: ['git reflog expire --expire=now --all'], notMatch: ['git reflog'] },
  'git.update-ref': { match: ['git update-ref -d refs/heads/main'], notMatch: ['git update-ref refs/heads/x HEAD'] },
  'git.credential': {
    match: ['echo url=https://github.com | git credential fill'],
    notMatch: ['git credential-cache exit'],
  },
  'git.config': {
    match: [
      'git config core.pager ./p.sh',
      'git config core.fsmonitor ./mon.sh',
      'git -c core.hooksPath=/tmp/h commit',
    ],
    notMatch: ['git config user.name "A B"', 'git config --get core.pager'],
  },
  'docker.destroy': {
    match: ['docker rm -f web', 'docker system prune -af', 'docker compose down -v'],
    notMatch: ['docker ps -a', 'docker compose up -d'],
  },
  'docker.escape': {
    match: ['docker run --privileged alpine', 'docker run -v /:/host alpine'],
    notMatch: ['docker run --rm -v "$PWD":/src node:20 npm test'],
  },
  'docker.host': {
    match: ['docker -H tcp://10.0.0.1:2375 ps', 'DOCKER_HOST=tcp://10.0.0.1 docker ps'],
    notMatch: ['docker ps'],
  },
  'kube.destroy': { match: ['kubectl delete pod web-1', 'kubectl drain node-3'], notMatch: ['kubectl get pods'] },
  'cloud.destroy': {
    match: ['aws ec2 terminate-instances --instance-ids i-1', 'gcloud compute instances delete vm-1'],
    notMatch: ['aws ec2 describe-instances'],
  },
  'secret.read': {
    match: ['kubectl get secret db -o yaml', 'aws secretsmanager get-secret-value --secret-id db'],
    notMatch: ['kubectl get secrets'],
  },
  'sql.destructive': { match: ['dropdb app_dev'], notMatch: ['createdb app_dev'] },
};
